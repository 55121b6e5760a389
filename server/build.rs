//! The same `cfg`s as the client's tests (`lacks_xvfb`, `lacks_chromium`, ...): the
//! server's tests that drive the window or a browser mark themselves ignored by them.
include!("../client/build.rs");
