//! A map board (Ironclad's and Skyfleet's table): shapes in hundredths of an inch, drawn in
//! inches with north up, each with its label.

use std::fmt::Write as _;

use engine::{MapKind, MapPicture, MapPoint, MapShape, Outline};

use super::{MAP_WIDTH, escape, labels, side_colour};

/// Hundredths of an inch as an SVG number (inches, y flipped so north is up).
pub(super) fn coordinate(hundredths: i64) -> String {
    let negative = hundredths < 0;
    let magnitude = hundredths.unsigned_abs();
    format!(
        "{}{}.{:02}",
        if negative { "-" } else { "" },
        magnitude / 100,
        magnitude % 100
    )
}

pub(super) fn draw_map(out: &mut String, map: &MapPicture) -> (i64, i64) {
    let width = map.width.max(1);
    let height = map.height.max(1);
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
    let labelled: Vec<labels::Anchor<'_>> = shapes
        .iter()
        .filter(|shape| has_label(shape))
        .map(|shape| labels::Anchor {
            at: label_anchor(shape),
            reach: match shape.outline {
                Outline::Circle { radius, .. } => radius.max(10),
                _ => 0,
            },
            text: &shape.label,
        })
        .collect();
    let mut places = labels::place(&labelled).into_iter();
    for shape in shapes {
        let label_at = if has_label(shape) {
            places.next()
        } else {
            None
        };
        draw_shape(out, shape, height, label_at);
    }
    out.push_str("</svg>");
    (MAP_WIDTH, pixel_height)
}

/// Units and terrain are named on the map.
fn has_label(shape: &MapShape) -> bool {
    matches!(shape.kind, MapKind::Unit | MapKind::Terrain) && !shape.label.trim().is_empty()
}

/// The point a shape is drawn around: a circle's centre, a polygon's mean corner, a line's
/// middle.
fn label_anchor(shape: &MapShape) -> MapPoint {
    match &shape.outline {
        Outline::Polygon { points } => {
            let count = i64::try_from(points.len()).unwrap_or(1).max(1);
            let sum = points
                .iter()
                .fold((0i64, 0i64), |(x, y), p| (x + p.x, y + p.y));
            MapPoint {
                x: sum.0 / count,
                y: sum.1 / count,
            }
        }
        Outline::Circle { centre, .. } => *centre,
        Outline::Line { from, to } => MapPoint {
            x: (from.x + to.x) / 2,
            y: (from.y + to.y) / 2,
        },
    }
}

/// One shape in its group, with its title and, for units and terrain, its label at
/// `label_at` (its baseline's middle, placed by [`labels::place`]).
fn draw_shape(out: &mut String, shape: &MapShape, height: i64, label_at: Option<MapPoint>) {
    let flip = |p: &MapPoint| (coordinate(p.x), coordinate(height - p.y));
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
    draw_outline(out, shape, height, (fill, stroke, opacity));
    if let Some(at) = label_at {
        let (x, y) = flip(&at);
        let _ = write!(
            out,
            "<text x=\"{x}\" y=\"{y}\" font-size=\"0.9\" text-anchor=\"middle\">{}</text>",
            escape(&shape.label)
        );
    }
    out.push_str("</g>");
}

/// The shape's outline in its colours.
fn draw_outline(
    out: &mut String,
    shape: &MapShape,
    height: i64,
    (fill, stroke, opacity): (&str, &str, &str),
) {
    let flip = |p: &MapPoint| (coordinate(p.x), coordinate(height - p.y));
    let colour = side_colour(shape.side);
    match &shape.outline {
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
        }
        Outline::Line { from, to } => {
            let ((x1, y1), (x2, y2)) = (flip(from), flip(to));
            let _ = write!(
                out,
                "<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" stroke=\"{stroke}\" stroke-width=\"0.12\" stroke-dasharray=\"0.4 0.3\"/>"
            );
        }
    }
}
