//! How large the map's glyphs are drawn, and which part of the map is in view when the
//! whole of it does not fit at that size: plain arithmetic, tested without a window.

/// The glyph sizes Control and Plus or Minus step through: each a square cell of that
/// many pixels. 12 is the smallest still read with ease; at 64 a 3840x2160 screen
/// shows about 55 by 30 cells, and a 1280x720 one 15 by 8, still enough to play.
pub const GLYPH_SIZES: [u16; 12] = [12, 14, 16, 18, 20, 24, 28, 32, 40, 48, 56, 64];

/// The size a step bigger than `chosen`, or, while the glyphs fit the map (`None`),
/// than `fitted`, the size they fit at.
pub fn bigger(chosen: Option<u16>, fitted: f32) -> u16 {
    let now = chosen.map_or(fitted, f32::from);
    GLYPH_SIZES
        .into_iter()
        .find(|&size| f32::from(size) > now)
        .unwrap_or(GLYPH_SIZES[GLYPH_SIZES.len() - 1])
}

/// The size a step smaller than `chosen` (or `fitted`), as `bigger`.
pub fn smaller(chosen: Option<u16>, fitted: f32) -> u16 {
    let now = chosen.map_or(fitted, f32::from);
    GLYPH_SIZES
        .into_iter()
        .rev()
        .find(|&size| f32::from(size) < now)
        .unwrap_or(GLYPH_SIZES[0])
}

/// The first cell in view, along one side, of a map `map` cells long shown `view` cells
/// at a time: the camel's cell in the middle, or as near the middle as the map's ends
/// allow (no view runs past the map's edge). The whole map fits from cell 0.
///
/// Worked out afresh from the camel's cell each frame, so that it needs no memory, and
/// the camel, always within `view / 2` cells of the middle, is always in view.
pub fn follow(camel: i32, view: i32, map: i32) -> i32 {
    if view >= map {
        return 0;
    }
    (camel - view / 2).clamp(0, map - view)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_that_fits_is_shown_from_its_first_cell() {
        assert_eq!(follow(30, 64, 64), 0);
        assert_eq!(follow(63, 80, 64), 0);
    }

    #[test]
    fn the_camel_is_in_the_middle_away_from_the_edges() {
        assert_eq!(follow(32, 20, 64), 22);
        assert_eq!(follow(33, 21, 64), 23);
    }

    #[test]
    fn the_view_stops_at_the_maps_edges() {
        assert_eq!(follow(0, 20, 64), 0);
        assert_eq!(follow(5, 20, 64), 0);
        assert_eq!(follow(63, 20, 64), 44);
        assert_eq!(follow(60, 20, 64), 44);
    }

    #[test]
    fn the_camel_is_always_in_view_and_the_view_always_on_the_map() {
        for map in 1..=80 {
            for view in 1..=90 {
                for camel in 0..map {
                    let first = follow(camel, view, map);
                    assert!(first >= 0, "{camel} {view} {map}");
                    assert!(first + view.min(map) <= map, "{camel} {view} {map}");
                    assert!(
                        (first..first + view).contains(&camel),
                        "{camel} {view} {map}"
                    );
                }
            }
        }
    }

    #[test]
    fn sizes_step_from_the_fitted_size_and_stop_at_the_ends() {
        assert_eq!(bigger(None, 19.0), 20);
        assert_eq!(smaller(None, 19.0), 18);
        assert_eq!(bigger(None, 20.0), 24);
        assert_eq!(bigger(Some(24), 10.0), 28);
        assert_eq!(smaller(Some(24), 99.0), 20);
        assert_eq!(bigger(Some(64), 20.0), 64);
        assert_eq!(smaller(Some(12), 20.0), 12);
        assert_eq!(smaller(None, 8.0), 12);
        assert_eq!(bigger(None, 90.0), 64);
    }
}
