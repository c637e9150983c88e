//! Board pictures as SVG, drawn from an engine's `Board` — which the public routes only ever
//! get from `Viewer::Public`, so the picture holds nothing a reader may not see. Under each
//! picture, its legend ([`legend`]).

use std::fmt::Write as _;

use engine::{Board, GridPicture, MapKind, MapPicture, MapPoint, Mark, Outline};

mod legend;

/// One square of a grid, in SVG pixels.
const CELL: i64 = 24;
/// Room for the row labels at the left and the column labels at the top.
const MARGIN: i64 = 28;
/// Room for a grid's title.
const TITLE: i64 = 22;
/// The widest a grid is shrunk to fit a page: wider ones (about 38 columns and more) are drawn
/// at full size and scroll, so that their squares and labels stay readable.
const LEGIBLE_WIDTH: i64 = 960;
/// The widest a map is drawn, in SVG pixels (its viewBox keeps the proportions).
const MAP_WIDTH: i64 = 720;

/// Side colours, cycled: readable on white, distinct for the colour-blind in pairs.
const SIDE_COLOURS: [&str; 6] = [
    "#1f5fa8", "#b8480f", "#2e7d32", "#7b3fa0", "#8a6d00", "#00838f",
];

fn side_colour(side: Option<u8>) -> &'static str {
    side.and_then(|s| SIDE_COLOURS.get(usize::from(s) % SIDE_COLOURS.len()))
        .copied()
        .unwrap_or("#555")
}

/// Text for SVG (XML) content and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A standalone SVG document (with the XML namespace) of `board`, titled `title`.
pub(crate) fn svg(board: &Board, title: &str) -> String {
    let mut body = String::new();
    let (width, height) = match board {
        Board::Grid(grid) => draw_grid(&mut body, grid, None, 0),
        Board::Grids { grids } => {
            let mut top = 0;
            let mut widest = 0;
            for named in grids {
                let (w, h) = draw_grid(&mut body, &named.grid, Some(&named.title), top);
                top += h + CELL;
                widest = widest.max(w);
            }
            (widest, (top - CELL).max(CELL))
        }
        Board::Map(map) => draw_map(&mut body, map),
    };
    let (width, height) = legend::draw_legend(&mut body, board, width, height);
    // A grid too wide to shrink to a page and stay readable is drawn at its own size, in the
    // page's scrolling box (the style sheet's `svg.board-large`); a map always shrinks whole.
    let large = !matches!(board, Board::Map(_)) && width > LEGIBLE_WIDTH;
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\"{} viewBox=\"0 0 {width} {height}\" width=\"{width}\" \
         height=\"{height}\" role=\"img\" aria-label=\"{label}\" font-family=\"sans-serif\">\
         <title>{label}</title>{body}</svg>\n",
        if large { " class=\"board-large\"" } else { "" },
        label = escape(title)
    )
}

/// Draws one grid at `top`; returns its width and height.
fn draw_grid(out: &mut String, grid: &GridPicture, title: Option<&str>, top: i64) -> (i64, i64) {
    let columns = i64::from(grid.width);
    let rows = i64::from(grid.height);
    let title_room = if title.is_some() { TITLE } else { 0 };
    let left = MARGIN;
    let grid_top = top + title_room + MARGIN;
    let width = left + columns * CELL + 4;
    let height = title_room + MARGIN + rows * CELL + 4;
    if let Some(title) = title {
        let _ = write!(
            out,
            "<text x=\"0\" y=\"{}\" font-size=\"15\" font-weight=\"bold\">{}</text>",
            top + 16,
            escape(title)
        );
    }
    let _ = write!(
        out,
        "<rect x=\"{left}\" y=\"{grid_top}\" width=\"{}\" height=\"{}\" fill=\"#eaf3fb\" stroke=\"#7a99b8\"/>",
        columns * CELL,
        rows * CELL
    );
    for column in 1..columns {
        let x = left + column * CELL;
        let _ = write!(
            out,
            "<line x1=\"{x}\" y1=\"{grid_top}\" x2=\"{x}\" y2=\"{}\" stroke=\"#c3d5e6\"/>",
            grid_top + rows * CELL
        );
    }
    for row in 1..rows {
        let y = grid_top + row * CELL;
        let _ = write!(
            out,
            "<line x1=\"{left}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#c3d5e6\"/>",
            left + columns * CELL
        );
    }
    for (index, label) in grid.column_labels.iter().enumerate() {
        let x = left + i64::try_from(index).unwrap_or(0) * CELL + CELL / 2;
        let _ = write!(
            out,
            "<text x=\"{x}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>",
            grid_top - 8,
            escape(label)
        );
    }
    for (index, label) in grid.row_labels.iter().enumerate() {
        let y = grid_top + i64::try_from(index).unwrap_or(0) * CELL + CELL / 2 + 4;
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{y}\" font-size=\"11\" text-anchor=\"end\">{}</text>",
            left - 6,
            escape(label)
        );
    }
    for mark in &grid.marks {
        let x = left + i64::from(mark.x) * CELL;
        let y = grid_top + i64::from(mark.y) * CELL;
        let (cx, cy) = (x + CELL / 2, y + CELL / 2);
        // The square's name, as the reports write it (`G13`): readable, and checkable by tests.
        let square = escape(&format!(
            "{}{}",
            grid.column_labels
                .get(usize::from(mark.x))
                .map_or("", String::as_str),
            grid.row_labels
                .get(usize::from(mark.y))
                .map_or("", String::as_str)
        ));
        let _ = write!(out, "<g data-square=\"{square}\">");
        let _ = match mark.mark {
            Mark::Miss => write!(
                out,
                "<circle class=\"miss\" cx=\"{cx}\" cy=\"{cy}\" r=\"4\" fill=\"#6b7f93\"><title>{square}: miss</title></circle>"
            ),
            Mark::Hit => write!(
                out,
                "<g class=\"hit\"><title>{square}: hit</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#f4b4a8\"/>\
                 <path d=\"M {} {} L {} {} M {} {} L {} {}\" stroke=\"#c62828\" stroke-width=\"3\"/></g>",
                x + 1,
                y + 1,
                CELL - 2,
                CELL - 2,
                x + 5,
                y + 5,
                x + CELL - 5,
                y + CELL - 5,
                x + CELL - 5,
                y + 5,
                x + 5,
                y + CELL - 5
            ),
            Mark::Sunk => write!(
                out,
                "<rect class=\"sunk\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#37474f\"><title>{square}: sunk</title></rect>",
                x + 1,
                y + 1,
                CELL - 2,
                CELL - 2
            ),
            Mark::OwnShip => write!(
                out,
                "<rect class=\"ship\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#90a4ae\"><title>{square}: ship</title></rect>",
                x + 2,
                y + 2,
                CELL - 4,
                CELL - 4
            ),
        };
        out.push_str("</g>");
    }
    for piece in &grid.pieces {
        let cx = left + i64::from(piece.x) * CELL + CELL / 2;
        let cy = grid_top + i64::from(piece.y) * CELL + CELL / 2;
        let colour = side_colour(Some(piece.side));
        let stroke = if piece.damaged { "#c62828" } else { "#fff" };
        let _ = write!(
            out,
            "<g class=\"piece\"><title>{}{}</title>",
            escape(&piece.label),
            if piece.damaged { " (damaged)" } else { "" }
        );
        match piece.heading {
            // A triangle pointing the way the piece heads.
            Some(heading) => {
                let _ = write!(
                    out,
                    "<path d=\"M 0 -9 L 7 7 L 0 3 L -7 7 Z\" fill=\"{colour}\" stroke=\"{stroke}\" stroke-width=\"1.5\" \
                     transform=\"translate({cx} {cy}) rotate({heading})\"/>"
                );
            }
            None => {
                let _ = write!(
                    out,
                    "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"8\" fill=\"{colour}\" stroke=\"{stroke}\" stroke-width=\"1.5\"/>"
                );
            }
        }
        out.push_str("</g>");
    }
    (width, height)
}

/// Hundredths of an inch as an SVG number (inches, y flipped so north is up).
fn coordinate(hundredths: i64) -> String {
    let negative = hundredths < 0;
    let magnitude = hundredths.unsigned_abs();
    format!(
        "{}{}.{:02}",
        if negative { "-" } else { "" },
        magnitude / 100,
        magnitude % 100
    )
}

fn draw_map(out: &mut String, map: &MapPicture) -> (i64, i64) {
    let width = map.width.max(1);
    let height = map.height.max(1);
    let flip = |p: &MapPoint| (coordinate(p.x), coordinate(height - p.y));
    // The map is drawn in inches inside a nested viewBox; the outer size is in pixels.
    let pixel_height = (MAP_WIDTH * height / width).max(1);
    let _ = write!(
        out,
        "<svg x=\"0\" y=\"0\" width=\"{MAP_WIDTH}\" height=\"{pixel_height}\" viewBox=\"0 0 {} {}\">\
         <rect width=\"{}\" height=\"{}\" fill=\"#eef4f9\" stroke=\"#7a99b8\" stroke-width=\"0.1\"/>",
        coordinate(width),
        coordinate(height),
        coordinate(width),
        coordinate(height)
    );
    let mut shapes: Vec<&engine::MapShape> = map.shapes.iter().collect();
    // Zones under terrain under hazards under tracks, wrecks and units.
    shapes.sort_by_key(|s| match s.kind {
        MapKind::Zone => 0,
        MapKind::Terrain => 1,
        MapKind::Hazard => 2,
        MapKind::Track => 3,
        MapKind::Wreck => 4,
        MapKind::Unit => 5,
    });
    for shape in shapes {
        let colour = side_colour(shape.side);
        let (fill, stroke, opacity) = match shape.kind {
            MapKind::Zone => (colour, colour, "0.12"),
            MapKind::Terrain => ("#8d9a6b", "#5d6b3d", "0.9"),
            MapKind::Hazard => ("#9e9e9e", "#616161", "0.35"),
            MapKind::Track => ("none", colour, "1"),
            MapKind::Wreck => ("#bdbdbd", colour, "0.8"),
            MapKind::Unit => (colour, "#222", "0.85"),
        };
        let mut title = shape.label.clone();
        if !shape.note.is_empty() {
            title.push_str(" — ");
            title.push_str(&shape.note);
        }
        let _ = write!(
            out,
            "<g class=\"{}\"><title>{}</title>",
            match shape.kind {
                MapKind::Zone => "zone",
                MapKind::Terrain => "terrain",
                MapKind::Hazard => "hazard",
                MapKind::Track => "track",
                MapKind::Wreck => "wreck",
                MapKind::Unit => "unit",
            },
            escape(&title)
        );
        let centre = match &shape.outline {
            Outline::Polygon { points } => {
                let corners: Vec<String> = points
                    .iter()
                    .map(|p| {
                        let (x, y) = flip(p);
                        format!("{x},{y}")
                    })
                    .collect();
                let _ = write!(
                    out,
                    "<polygon points=\"{}\" fill=\"{fill}\" fill-opacity=\"{opacity}\" stroke=\"{stroke}\" stroke-width=\"0.08\"/>",
                    corners.join(" ")
                );
                let count = i64::try_from(points.len()).unwrap_or(1).max(1);
                let sum = points
                    .iter()
                    .fold((0i64, 0i64), |(x, y), p| (x + p.x, y + p.y));
                MapPoint {
                    x: sum.0 / count,
                    y: sum.1 / count,
                }
            }
            Outline::Circle { centre, radius } => {
                let (x, y) = flip(centre);
                let _ = write!(
                    out,
                    "<circle cx=\"{x}\" cy=\"{y}\" r=\"{}\" fill=\"{fill}\" fill-opacity=\"{opacity}\" stroke=\"{stroke}\" stroke-width=\"0.08\"/>",
                    coordinate((*radius).max(10))
                );
                if let Some(heading) = shape.heading {
                    // A line from the centre the way the unit heads.
                    let length = radius.max(&50) * 2;
                    let radians = f64::from(heading).to_radians();
                    #[allow(clippy::cast_possible_truncation, reason = "a drawing, in range")]
                    let tip = MapPoint {
                        x: centre.x + (length as f64 * radians.sin()).round() as i64,
                        y: centre.y + (length as f64 * radians.cos()).round() as i64,
                    };
                    let (tx, ty) = flip(&tip);
                    let _ = write!(
                        out,
                        "<line x1=\"{x}\" y1=\"{y}\" x2=\"{tx}\" y2=\"{ty}\" stroke=\"{colour}\" stroke-width=\"0.15\"/>"
                    );
                }
                *centre
            }
            Outline::Line { from, to } => {
                let ((x1, y1), (x2, y2)) = (flip(from), flip(to));
                let _ = write!(
                    out,
                    "<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" stroke=\"{stroke}\" stroke-width=\"0.12\" stroke-dasharray=\"0.4 0.3\"/>"
                );
                MapPoint {
                    x: (from.x + to.x) / 2,
                    y: (from.y + to.y) / 2,
                }
            }
        };
        if matches!(shape.kind, MapKind::Unit | MapKind::Terrain) {
            let (x, y) = flip(&centre);
            let _ = write!(
                out,
                "<text x=\"{x}\" y=\"{y}\" font-size=\"0.9\" text-anchor=\"middle\" dy=\"-1.2\">{}</text>",
                escape(&shape.label)
            );
        }
        out.push_str("</g>");
    }
    out.push_str("</svg>");
    (MAP_WIDTH, pixel_height)
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{GridMark, GridPiece, MapShape, NamedGrid};

    fn grid() -> GridPicture {
        GridPicture {
            width: 3,
            height: 2,
            column_labels: vec!["A".into(), "B".into(), "<C>".into()],
            row_labels: vec!["1".into(), "2".into()],
            marks: vec![
                GridMark {
                    x: 0,
                    y: 0,
                    mark: Mark::Hit,
                },
                GridMark {
                    x: 1,
                    y: 1,
                    mark: Mark::Miss,
                },
            ],
            pieces: vec![GridPiece {
                x: 2,
                y: 1,
                label: "Dreadnought <b>".into(),
                side: 1,
                heading: Some(90),
                damaged: true,
            }],
        }
    }

    #[test]
    fn a_grid_draws_its_marks_and_pieces_escaped() {
        let svg = svg(&Board::Grid(grid()), "Turn 1 & <all>");
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.contains("<title>Turn 1 &amp; &lt;all&gt;</title>"));
        assert_eq!(svg.matches("class=\"hit\"").count(), 1);
        assert_eq!(svg.matches("class=\"miss\"").count(), 1);
        assert!(svg.contains("&lt;C&gt;"));
        assert!(svg.contains("Dreadnought &lt;b&gt; (damaged)"));
        assert!(svg.contains("rotate(90)"));
        assert!(!svg.contains("<b>") && !svg.contains("<C>"));
    }

    #[test]
    fn a_grid_too_wide_to_shrink_is_drawn_at_its_own_size() {
        let wide = |columns: u16| {
            let mut picture = grid();
            picture.width = columns;
            picture.column_labels = (0..columns).map(|c| c.to_string()).collect();
            svg(&Board::Grid(picture), "sea")
        };
        assert!(!wide(19).contains("board-large"));
        assert!(
            wide(100)
                .starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"board-large\"")
        );
    }

    #[test]
    fn several_grids_stack_with_their_titles() {
        let board = Board::Grids {
            grids: vec![
                NamedGrid {
                    title: "Ann's ocean".into(),
                    grid: grid(),
                },
                NamedGrid {
                    title: "Bob's ocean".into(),
                    grid: grid(),
                },
            ],
        };
        let svg = svg(&board, "oceans");
        assert!(svg.contains("Ann&#39;s ocean") && svg.contains("Bob&#39;s ocean"));
        assert_eq!(svg.matches("class=\"hit\"").count(), 2);
    }

    #[test]
    fn a_map_flips_y_and_draws_in_inches() {
        let map = MapPicture {
            width: 4800,
            height: 3600,
            shapes: vec![MapShape {
                kind: MapKind::Unit,
                label: "Resolute".into(),
                side: Some(0),
                outline: Outline::Circle {
                    centre: MapPoint { x: 1000, y: 600 },
                    radius: 100,
                },
                heading: Some(90),
                note: "hull 5/5".into(),
            }],
        };
        let svg = svg(&Board::Map(map), "map");
        assert!(svg.contains("viewBox=\"0 0 48.00 36.00\""), "{svg}");
        // y = 36 - 6 = 30; heading 90° points along +x: the tip is 2" east.
        assert!(svg.contains("cx=\"10.00\" cy=\"30.00\""), "{svg}");
        assert!(svg.contains("x2=\"12.00\" y2=\"30.00\""), "{svg}");
        assert!(svg.contains("Resolute — hull 5/5"));
    }
}
