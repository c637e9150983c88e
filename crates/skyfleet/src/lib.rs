//! `skyfleet`: the airship-fleet wargame (seed 002) as an Admiralty rule engine. Two fleets of
//! airships and wings, built to a points limit, fight over a table measured in inches with an
//! elevation band, among floating islands, cloud banks and storms.
//!
//! Rule IDs (`SKY-…`) refer to the catalogue `shared/rules/skyfleet.md`; the engine's own
//! rulings (`SKY-ADM-…`) are in `docs/rules/skyfleet.md`. Nothing of the rules text is
//! reproduced here, only its mechanics.

pub mod battle;
pub mod combat;
pub mod command;
pub mod fire;
pub mod fleet;
pub mod geometry;
pub mod log;
pub mod movement;
pub mod orders;
pub mod state;
pub mod tables;
pub mod terrain;
pub mod torpedo;
pub mod turn;

pub use fleet::{FleetError, Setup, ShipSetup, SideSetup, WingSetup};
pub use geometry::{Angle, Length, Point, Turn};
pub use state::{State, Unit, UnitId};
pub use tables::{Class, ModuleKind, WeaponKind};
