//! The turn's one attack: PASS, or a special weapon (NUKE, SCUBA and its recapture,
//! TORPEDO, EXPERIMENTAL, BOMBER), each checked against what the player has left.

use engine::PlayerId;

use crate::board::Square;
use crate::legality::{
    OrderError, check_available, check_sacrifice, check_target, opponent_names, recapture_target,
    torpedo_heading,
};
use crate::orders::{Attack, BlastList};
use crate::setup::Special;

use super::Draft;
use super::args::Args;
use super::tokens::Tok;
use super::vocabulary::{Command, Direction};

impl Draft<'_> {
    pub(super) fn read_attack(
        &mut self,
        line: usize,
        command: Command,
        tokens: &[Tok],
        from: usize,
    ) -> Result<(), OrderError> {
        let (command, args) = self.read_args(command, tokens, from)?;
        self.upgraded = Some(command);
        self.one_attack(command)?;
        let attack = match command {
            Command::Fire => return self.read_fire(line, &args),
            Command::Pass => self.pass(&args)?,
            Command::Nuke => self.nuke(&args)?,
            Command::Scuba => self.scuba(&args)?,
            Command::Recapture => self.recapture(&args)?,
            Command::Torpedo => self.torpedo(&args)?,
            Command::Experimental => self.experimental(&args)?,
            Command::Bomber => self.bomber(&args)?,
            Command::Place => return Err(OrderError::UnknownOrder("place".into())),
        };
        self.attack = Some((line, attack));
        self.first_attack_text = self.line_text.clone();
        Ok(())
    }

    /// One attack a turn: a special weapon or PASS after any attack, or after shots.
    fn one_attack(&self, command: Command) -> Result<(), OrderError> {
        if let Some((earlier, _)) = &self.attack {
            return Err(OrderError::SecondAttack {
                line: *earlier,
                what: self.first_attack_text.clone(),
            });
        }
        if command != Command::Fire
            && let Some(earlier) = self.first_shot_line
        {
            return Err(OrderError::SecondAttack {
                line: earlier,
                what: self.first_attack_text.clone(),
            });
        }
        Ok(())
    }

    fn pass(&mut self, args: &Args) -> Result<Attack, OrderError> {
        let what = Command::Pass.what();
        args.no_squares(what)?;
        args.no_extras(what, false, false)?;
        if args.target.is_some() {
            return Err(OrderError::Missing("PASS aims at no one".into()));
        }
        self.understood.push("pass: no attack this turn".into());
        Ok(Attack::Pass)
    }

    fn nuke(&mut self, args: &Args) -> Result<Attack, OrderError> {
        let what = Command::Nuke.what();
        args.no_extras(what, false, false)?;
        let centre = args.one_square(what)?;
        check_available(self.state, self.me, Special::Nuke)?;
        let at = self.target(args.target)?;
        self.understood.push(format!(
            "tactical nuke centred on {centre}{}{}",
            self.on_whom(at),
            self.uses_note(Special::Nuke)
        ));
        Ok(Attack::Nuke { at, centre })
    }

    fn scuba(&mut self, args: &Args) -> Result<Attack, OrderError> {
        let what = Command::Scuba.what();
        args.no_squares(what)?;
        args.no_extras(what, false, false)?;
        check_available(self.state, self.me, Special::Scuba)?;
        let at = self.target(args.target)?;
        self.understood.push(format!(
            "SCUBA attack on the smallest ship afloat{}{}",
            self.on_whom(at),
            self.uses_note(Special::Scuba)
        ));
        Ok(Attack::Scuba { at })
    }

    fn recapture(&mut self, args: &Args) -> Result<Attack, OrderError> {
        let what = Command::Recapture.what();
        args.no_squares(what)?;
        args.no_extras(what, false, true)?;
        if args.target.is_some() {
            return Err(OrderError::Missing(
                "a recapture names your own ship, not a player".into(),
            ));
        }
        if args.ships.len() > 1 {
            return Err(OrderError::Missing("recapture one ship at a time".into()));
        }
        check_available(self.state, self.me, Special::Scuba)?;
        let ship = recapture_target(self.state, self.me, args.ships.first().copied())?;
        self.understood.push(format!(
            "SCUBA recapture of your {ship}{}",
            self.uses_note(Special::Scuba)
        ));
        Ok(Attack::Recapture { ship })
    }

    fn torpedo(&mut self, args: &Args) -> Result<Attack, OrderError> {
        let what = Command::Torpedo.what();
        args.no_extras(what, true, false)?;
        let start = args.one_square(what)?;
        let written = match args.directions.as_slice() {
            [] => None,
            [Direction::Compass(heading)] => Some(*heading),
            [_] => {
                return Err(OrderError::Missing(
                    "a torpedo's direction is N, S, E or W".into(),
                ));
            }
            _ => return Err(OrderError::Missing("give one direction".into())),
        };
        let heading = torpedo_heading(start, written)?;
        check_available(self.state, self.me, Special::Torpedo)?;
        let at = self.target(args.target)?;
        self.understood.push(format!(
            "torpedo from {start} running {heading}{}{}",
            self.on_whom(at),
            self.uses_note(Special::Torpedo)
        ));
        Ok(Attack::Torpedo { at, start, heading })
    }

    fn experimental(&mut self, args: &Args) -> Result<Attack, OrderError> {
        if !args.ships.is_empty() {
            return Err(OrderError::Missing(
                "name a ship only after SACRIFICE, e.g. SACRIFICE Cruiser".into(),
            ));
        }
        args.no_extras(Command::Experimental.what(), false, true)?;
        let squares = args.expand()?;
        let pattern = BlastList::try_from(squares)?;
        if let Some(ship) = args.sacrifice {
            check_sacrifice(self.state, self.me, ship)?;
        }
        check_available(self.state, self.me, Special::Experimental)?;
        let at = self.target(args.target)?;
        let listed = pattern.squares().len();
        let growth = if listed < 6 {
            format!(" (a roll above {listed} grows the blast around your squares automatically)")
        } else {
            String::new()
        };
        let sacrifice = args
            .sacrifice
            .map(|s| format!(", sacrificing the {s} on a backfire"))
            .unwrap_or_default();
        self.understood.push(format!(
            "experimental weapon, blast {}{}{growth}{sacrifice}{}",
            pattern
                .squares()
                .iter()
                .map(Square::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            self.on_whom(at),
            self.uses_note(Special::Experimental)
        ));
        Ok(Attack::Experimental {
            at,
            pattern,
            sacrifice: args.sacrifice,
        })
    }

    fn bomber(&mut self, args: &Args) -> Result<Attack, OrderError> {
        let what = Command::Bomber.what();
        args.no_extras(what, false, false)?;
        let centre = args.one_square(what)?;
        check_available(self.state, self.me, Special::Bomber)?;
        let at = self.target(args.target)?;
        self.understood.push(format!(
            "bomber flight over {centre}{}{}",
            self.on_whom(at),
            self.uses_note(Special::Bomber)
        ));
        Ok(Attack::Bomber { at, centre })
    }

    /// ` at Bob` when there is more than one opponent.
    pub(super) fn on_whom(&self, at: PlayerId) -> String {
        if self.several_opponents() {
            format!(" at {}", self.state.name_of(at))
        } else {
            String::new()
        }
    }

    pub(super) fn uses_note(&self, special: Special) -> String {
        let left = self
            .state
            .admiral(self.me)
            .map_or(0, |a| a.uses_left().of(special));
        format!(
            " ({} use{} left before this one)",
            left,
            if left == 1 { "" } else { "s" }
        )
    }

    /// The player aimed at: the one named, or the only opponent (SALVO-GM-16).
    pub(super) fn target(&self, named: Option<PlayerId>) -> Result<PlayerId, OrderError> {
        match named {
            Some(target) => {
                check_target(self.state, self.me, target)?;
                Ok(target)
            }
            None => match self.state.opponents_of(self.me).as_slice() {
                [only] => Ok(only.id()),
                [] => Err(OrderError::Missing(
                    "there is no opponent left to attack".into(),
                )),
                _ => Err(OrderError::TargetNeeded {
                    opponents: opponent_names(self.state, self.me),
                }),
            },
        }
    }
}
