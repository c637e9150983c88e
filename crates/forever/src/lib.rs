//! `forever`: the Battleships Forever tabletop rules (seed 000) as an Admiralty rule engine.
//! Players design ships as trees of rectangles, price them in points, and fight in continuous
//! 2-D space with scatter-die ray casting, blasts, sweeps, reactions and terrain.
//!
//! Rule IDs (`FOREVER-…`) refer to the catalogue `shared/rules/forever.md`; the engine's own
//! rulings (`FOREVER-ADM-…`) are in `docs/rules/forever.md`. Nothing of the rules text is
//! reproduced here, only its mechanics.

pub mod design;
pub mod fixed;
pub mod geometry;
