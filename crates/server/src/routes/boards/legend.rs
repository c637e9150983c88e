//! A board's legend, drawn under the picture inside the same SVG (so the board alone, as
//! `board.svg`, explains itself): what each mark, piece or shape on it means, each side's
//! colour, and for a map (measured in inches) a scale.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use engine::{Board, GridPicture, GridPiece, MapKind, MapPicture, Mark};

use super::{coordinate, escape, side_colour};

/// Room for one entry of a legend.
const KEY_WIDTH: i64 = 190;
const KEY_HEIGHT: i64 = 20;

/// One entry of a legend: how a thing is drawn (SVG in a 16-pixel box at the origin) and
/// what it is.
struct Key {
    swatch: String,
    label: String,
}

fn key(swatch: impl Into<String>, label: impl Into<String>) -> Key {
    Key {
        swatch: swatch.into(),
        label: label.into(),
    }
}

/// What each mark, piece and shape drawn on a grid means: the marks on it (or, on a grid
/// with nothing on it yet, the marks shots leave), and each side's pieces.
fn grid_keys(grids: &[&GridPicture]) -> Vec<Key> {
    let marks: BTreeSet<Mark> = grids
        .iter()
        .flat_map(|g| g.marks.iter().map(|m| m.mark))
        .collect();
    let pieces: Vec<&GridPiece> = grids.iter().flat_map(|g| g.pieces.iter()).collect();
    let shown: Vec<Mark> = if marks.is_empty() && pieces.is_empty() {
        vec![Mark::Hit, Mark::Sunk, Mark::Miss]
    } else {
        marks.into_iter().collect()
    };
    let mut keys: Vec<Key> = shown
        .into_iter()
        .map(|mark| match mark {
            Mark::OwnShip => key(
                "<rect x=\"2\" y=\"2\" width=\"12\" height=\"12\" fill=\"#90a4ae\"/>",
                "your ship",
            ),
            Mark::Hit => key(
                "<rect x=\"1\" y=\"1\" width=\"14\" height=\"14\" fill=\"#f4b4a8\"/>\
                 <path d=\"M 4 4 L 12 12 M 12 4 L 4 12\" stroke=\"#c62828\" stroke-width=\"2\"/>",
                "hit",
            ),
            Mark::Sunk => key(
                "<rect x=\"1\" y=\"1\" width=\"14\" height=\"14\" fill=\"#37474f\"/>",
                "sunk ship",
            ),
            Mark::Miss => key(
                "<circle cx=\"8\" cy=\"8\" r=\"4\" fill=\"#6b7f93\"/>",
                "miss",
            ),
        })
        .collect();
    let sides: BTreeSet<u8> = pieces.iter().map(|p| p.side).collect();
    let names: Vec<&str> = grids
        .iter()
        .find(|g| !g.sides.is_empty())
        .map(|g| g.sides.iter().map(String::as_str).collect())
        .unwrap_or_default();
    for side in sides {
        keys.push(key(
            format!(
                "<path d=\"M 0 -7 L 6 6 L 0 3 L -6 6 Z\" fill=\"{}\" transform=\"translate(8 9) rotate(90)\"/>",
                side_colour(Some(side))
            ),
            format!("{}'s ship; tip: heading", side_name(&names, side)),
        ));
    }
    if pieces.iter().any(|p| p.damaged) {
        keys.push(key(
            "<circle cx=\"8\" cy=\"8\" r=\"6\" fill=\"#888\" stroke=\"#c62828\" stroke-width=\"2\"/>",
            "red edge: damaged",
        ));
    }
    keys
}

/// What each kind of shape on a map means, for the kinds on it, and each side's colour.
fn map_keys(map: &MapPicture) -> Vec<Key> {
    let kinds: BTreeSet<MapKind> = map.shapes.iter().map(|s| s.kind).collect();
    let mut keys: Vec<Key> = kinds
        .into_iter()
        .map(|kind| match kind {
            MapKind::Zone => key(
                "<rect x=\"1\" y=\"3\" width=\"14\" height=\"10\" fill=\"#1f5fa8\" fill-opacity=\"0.15\" stroke=\"#1f5fa8\"/>",
                "deployment zone",
            ),
            MapKind::Terrain => key(
                "<circle cx=\"8\" cy=\"8\" r=\"6\" fill=\"#8d9a6b\" stroke=\"#5d6b3d\"/>",
                "terrain: in the way",
            ),
            MapKind::Hazard => key(
                "<circle cx=\"8\" cy=\"8\" r=\"6\" fill=\"#9e9e9e\" fill-opacity=\"0.35\" stroke=\"#616161\"/>",
                "hazard",
            ),
            MapKind::Track => key(
                "<line x1=\"1\" y1=\"8\" x2=\"15\" y2=\"8\" stroke=\"#555\" stroke-width=\"2\" stroke-dasharray=\"3 2\"/>",
                "track",
            ),
            MapKind::Wreck => key(
                "<circle cx=\"8\" cy=\"8\" r=\"5\" fill=\"#bdbdbd\" stroke=\"#555\"/>",
                "wreck",
            ),
            MapKind::Unit => key(
                "<circle cx=\"6\" cy=\"10\" r=\"5\" fill=\"#555\" stroke=\"#222\"/>\
                 <line x1=\"6\" y1=\"10\" x2=\"15\" y2=\"1\" stroke=\"#555\" stroke-width=\"1.5\"/>",
                "ship; line: its heading",
            ),
        })
        .collect();
    let sides: BTreeSet<u8> = map.shapes.iter().filter_map(|s| s.side).collect();
    let names: Vec<&str> = map.sides.iter().map(String::as_str).collect();
    for side in sides {
        keys.push(key(
            format!(
                "<rect x=\"2\" y=\"2\" width=\"12\" height=\"12\" fill=\"{}\"/>",
                side_colour(Some(side))
            ),
            side_name(&names, side),
        ));
    }
    keys
}

/// A side as the legend names it: its name as the engine gave it, else "side N".
fn side_name(names: &[&str], side: u8) -> String {
    names
        .get(usize::from(side))
        .map(|name| name.trim())
        .filter(|name| !name.is_empty())
        .map_or_else(|| format!("side {}", u16::from(side) + 1), str::to_owned)
}

/// A scale bar for `map`, whose picture is `drawn_width` wide (in the legend's units), at
/// `top`: a round number of inches
/// about a sixth of the table, with its length and the table's size written; returns the
/// height it takes.
fn draw_scale(out: &mut String, map: &MapPicture, drawn_width: i64, top: i64) -> i64 {
    let width = map.width.max(1);
    let inches = width / 100;
    let length = [1, 2, 3, 6, 12, 24, 36, 48, 72, 96, 120]
        .into_iter()
        .filter(|&n| n * 6 <= inches.max(1))
        .max()
        .unwrap_or(1);
    let pixels = (drawn_width * length * 100 / width).max(1);
    let y = top + 12;
    let _ = write!(
        out,
        "<g class=\"scale\"><title>scale: {length} inches</title>\
         <path d=\"M 4 {} L 4 {y} L {} {y} L {} {}\" fill=\"none\" stroke=\"#222\" stroke-width=\"2\"/>\
         <text x=\"{}\" y=\"{}\" font-size=\"13\">{length} inch{} (the table: {} × {} inches)</text></g>",
        y - 6,
        4 + pixels,
        4 + pixels,
        y - 6,
        12 + pixels,
        y + 4,
        if length == 1 { "" } else { "es" },
        coordinate(width),
        coordinate(map.height),
    );
    KEY_HEIGHT + 4
}

/// Draws the legend of `board` under a picture `width` by `height`; returns the size of the
/// whole. A map's picture is drawn wide and shrinks on a phone to about half, so its legend
/// is drawn half as large again, to stay as readable as a grid's.
pub(super) fn draw_legend(out: &mut String, board: &Board, width: i64, height: i64) -> (i64, i64) {
    let (keys, tenths) = match board {
        Board::Grid(grid) => (grid_keys(&[grid]), 10),
        Board::Grids { grids } => (
            grid_keys(&grids.iter().map(|g| &g.grid).collect::<Vec<_>>()),
            10,
        ),
        Board::Map(map) => (map_keys(map), 15),
    };
    let width = width.max(KEY_WIDTH * tenths / 10);
    // Inside the legend's group, lengths are before its scaling.
    let inner_width = width * 10 / tenths;
    // Room for the longest entry (a side's name can be long), within the picture's width.
    let key_width = keys
        .iter()
        .map(|k| 32 + i64::try_from(k.label.chars().count()).unwrap_or(0) * 15 / 2)
        .max()
        .unwrap_or(KEY_WIDTH)
        .clamp(KEY_WIDTH, inner_width.max(KEY_WIDTH));
    let per_row = (inner_width / key_width).max(1);
    let _ = write!(
        out,
        "<g class=\"legend\" transform=\"translate(0 {}) scale({}.{})\"><title>legend</title>",
        height + 10,
        tenths / 10,
        tenths % 10
    );
    let mut top = 0;
    if let Board::Map(map) = board {
        top += draw_scale(out, map, inner_width, top);
    }
    for (index, entry) in keys.iter().enumerate() {
        let index = i64::try_from(index).unwrap_or(0);
        let (x, y) = (
            (index % per_row) * key_width,
            top + (index / per_row) * KEY_HEIGHT,
        );
        let _ = write!(
            out,
            "<g class=\"key\" transform=\"translate({x} {y})\">{}<text x=\"22\" y=\"13\" font-size=\"13\">{}</text></g>",
            entry.swatch,
            escape(&entry.label)
        );
    }
    out.push_str("</g>");
    let rows = (i64::try_from(keys.len()).unwrap_or(0) + per_row - 1) / per_row;
    let legend_height = (top + rows * KEY_HEIGHT + 4) * tenths / 10;
    (width, height + 10 + legend_height)
}

#[cfg(test)]
mod tests {
    use engine::{GridMark, MapPoint, MapShape, Outline};

    use super::super::MAP_WIDTH;
    use super::*;

    fn grid(marks: Vec<GridMark>, pieces: Vec<GridPiece>) -> GridPicture {
        GridPicture {
            width: 2,
            height: 2,
            column_labels: vec!["A".into(), "B".into()],
            row_labels: vec!["1".into(), "2".into()],
            marks,
            pieces,
            sides: Vec::new(),
        }
    }

    fn labels(keys: &[Key]) -> Vec<&str> {
        keys.iter().map(|k| k.label.as_str()).collect()
    }

    #[test]
    fn an_empty_grid_explains_what_shots_leave_and_a_marked_one_what_it_shows() {
        assert_eq!(
            labels(&grid_keys(&[&grid(vec![], vec![])])),
            ["hit", "sunk ship", "miss"]
        );
        let marked = grid(
            vec![GridMark {
                x: 0,
                y: 0,
                mark: Mark::OwnShip,
            }],
            vec![GridPiece {
                x: 1,
                y: 1,
                label: "Monitor".into(),
                side: 1,
                heading: Some(0),
                damaged: true,
            }],
        );
        assert_eq!(
            labels(&grid_keys(&[&marked])),
            [
                "your ship",
                "side 2's ship; tip: heading",
                "red edge: damaged"
            ]
        );
    }

    #[test]
    fn a_map_has_a_scale_in_inches_and_a_key_for_each_kind_and_side() {
        let map = MapPicture {
            width: 4800,
            height: 3600,
            shapes: vec![MapShape {
                kind: MapKind::Unit,
                label: "Resolute".into(),
                side: Some(0),
                outline: Outline::Circle {
                    centre: MapPoint { x: 100, y: 100 },
                    radius: 50,
                },
                heading: None,
                note: String::new(),
            }],
            sides: Vec::new(),
        };
        let mut out = String::new();
        let (width, height) = draw_legend(&mut out, &Board::Map(map), MAP_WIDTH, 540);
        assert!(width >= MAP_WIDTH && height > 540);
        // A 48-inch table: the longest round length within a sixth of it, 6 inches.
        assert!(
            out.contains("6 inches (the table: 48.00 × 36.00 inches)"),
            "{out}"
        );
        assert!(out.contains("ship; line: its heading") && out.contains(">side 1<"));
    }

    #[test]
    fn a_legend_names_the_sides_the_engine_named() {
        let mut named = grid(
            vec![],
            vec![GridPiece {
                x: 1,
                y: 1,
                label: "Monitor".into(),
                side: 1,
                heading: Some(0),
                damaged: false,
            }],
        );
        named.sides = vec!["Union (Ann)".into(), "Confederacy (Bob & <Cy>)".into()];
        assert_eq!(
            labels(&grid_keys(&[&named])),
            ["Confederacy (Bob & <Cy>)'s ship; tip: heading"]
        );
        let map = MapPicture {
            width: 4800,
            height: 3600,
            shapes: vec![MapShape {
                kind: MapKind::Unit,
                label: "Resolute".into(),
                side: Some(0),
                outline: Outline::Circle {
                    centre: MapPoint { x: 100, y: 100 },
                    radius: 50,
                },
                heading: None,
                note: String::new(),
            }],
            sides: vec!["Azure Wing (Cora)".into(), "Red Fleet (Dmitri)".into()],
        };
        let mut out = String::new();
        draw_legend(&mut out, &Board::Map(map), MAP_WIDTH, 540);
        assert!(out.contains(">Azure Wing (Cora)<"), "{out}");
        assert!(!out.contains(">side 1<"), "{out}");
        // Escaped in the SVG.
        let mut out = String::new();
        draw_legend(&mut out, &Board::Grid(named), 200, 200);
        assert!(out.contains("Confederacy (Bob &amp; &lt;Cy&gt;)"), "{out}");
    }
}
