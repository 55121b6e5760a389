//! How large the display is, asked before the window opens: miniquad cannot say, so on
//! X11 the X server is asked through libX11, loaded at run time (no X, no answer).

/// The size of the X display's default screen, if there is an X display to ask.
#[cfg(target_os = "linux")]
pub fn size() -> Option<(u32, u32)> {
    let xlib = x11_dl::xlib::Xlib::open().ok()?;
    // SAFETY: the display is opened, read and closed here and used nowhere else; a null
    // display (no X server, no DISPLAY) is checked before any other call.
    unsafe {
        let display = (xlib.XOpenDisplay)(std::ptr::null());
        if display.is_null() {
            return None;
        }
        let screen = (xlib.XDefaultScreen)(display);
        let width = (xlib.XDisplayWidth)(display, screen);
        let height = (xlib.XDisplayHeight)(display, screen);
        (xlib.XCloseDisplay)(display);
        Some((u32::try_from(width).ok()?, u32::try_from(height).ok()?))
    }
}

#[cfg(not(target_os = "linux"))]
pub fn size() -> Option<(u32, u32)> {
    None
}

/// The window's first size on a display of `width` by `height`: most of it, with room
/// left for the desktop's panels and the title bar, no wider than 16:9 of that height (X
/// sees two monitors side by side as one wide screen), and never under `least`.
pub fn first_window((width, height): (u32, u32), least: [u32; 2]) -> [u32; 2] {
    let h = height * 85 / 100;
    let w = (width * 90 / 100).min(h * 16 / 9);
    [w.max(least[0]), h.max(least[1])]
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEAST: [u32; 2] = [860, 540];

    #[test]
    fn the_first_window_fills_most_of_one_screen() {
        assert_eq!(first_window((1920, 1080), LEAST), [1632, 918]);
        assert_eq!(first_window((1366, 768), LEAST), [1159, 652]);
        // Two monitors side by side: one monitor's worth, not both.
        assert_eq!(first_window((3840, 1080), LEAST), [1632, 918]);
        // A display smaller than the least window gets the least window.
        assert_eq!(first_window((800, 600), LEAST), [860, 540]);
    }
}
