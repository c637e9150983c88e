//! A grid board (Barmy's ocean, Salvo's sea): the squares with their labels, the marks shots
//! left and the pieces afloat.

use std::fmt::Write as _;

use engine::{GridPicture, Mark};

use super::{CELL, MARGIN, TITLE, escape, side_colour};

/// Draws one grid at `top`; returns its width and height.
pub(super) fn draw_grid(
    out: &mut String,
    grid: &GridPicture,
    title: Option<&str>,
    top: i64,
) -> (i64, i64) {
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
    draw_squares(out, grid, left, grid_top);
    draw_marks(out, grid, left, grid_top);
    draw_pieces(out, grid, left, grid_top);
    (width, height)
}

/// The grid's water, its lines and its column and row labels.
fn draw_squares(out: &mut String, grid: &GridPicture, left: i64, grid_top: i64) {
    let columns = i64::from(grid.width);
    let rows = i64::from(grid.height);
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
}

/// The marks shots left: misses, hits, sunk ships, and the viewer's own ships.
fn draw_marks(out: &mut String, grid: &GridPicture, left: i64, grid_top: i64) {
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
}

/// The pieces afloat, in their sides' colours, pointing the way they head.
fn draw_pieces(out: &mut String, grid: &GridPicture, left: i64, grid_top: i64) {
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
}
