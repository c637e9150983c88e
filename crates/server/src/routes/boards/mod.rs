//! Board pictures as SVG, drawn from an engine's `Board` — which the public routes only ever
//! get from `Viewer::Public`, so the picture holds nothing a reader may not see. Under each
//! picture, its legend ([`legend`]).

use engine::Board;

mod grid;
mod labels;
mod legend;
mod map;

use grid::draw_grid;
use map::{coordinate, draw_map};

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

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{
        GridMark, GridPicture, GridPiece, MapKind, MapPicture, MapPoint, MapShape, Mark, NamedGrid,
        Outline,
    };

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
            sides: Vec::new(),
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
            sides: Vec::new(),
        };
        let svg = svg(&Board::Map(map), "map");
        assert!(svg.contains("viewBox=\"0 0 48.00 36.00\""), "{svg}");
        // y = 36 - 6 = 30; heading 90° points along +x: the tip is 2" east.
        assert!(svg.contains("cx=\"10.00\" cy=\"30.00\""), "{svg}");
        assert!(svg.contains("x2=\"12.00\" y2=\"30.00\""), "{svg}");
        assert!(svg.contains("Resolute — hull 5/5"));
    }
}
