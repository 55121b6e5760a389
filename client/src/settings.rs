//! Client preferences, remembered across runs as a small JSON file.
//!
//! Preferences are a convenience, never a reason not to start: a missing, unreadable or
//! corrupt file gives the defaults.

use std::fs;
use std::io;
use std::path::Path;
#[cfg(not(target_arch = "wasm32"))]
use std::path::PathBuf;

#[cfg(not(target_arch = "wasm32"))]
use directories::ProjectDirs;
use serde::{Deserialize, Serialize};

pub const FILE_NAME: &str = "settings.json";

/// `#[serde(default)]` lets a file written by an older client, missing newer fields,
/// still load with its other choices kept.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Whether the F1 energy panel is shown.
    pub panel_open: bool,
    /// Where the player put the energy panel (its top-left corner), if they moved it.
    pub panel_at: Option<[f32; 2]>,
    /// The window's size when it was last closed.
    pub window: Option<[u32; 2]>,
    /// Whether the window fills the screen (F11, Alt+Enter).
    pub full_screen: bool,
    /// The map's cells in pixels (Control and Plus or Minus), or `None`: as large as fit
    /// the whole map.
    pub glyph_size: Option<u16>,
    /// How quickly what a command caused plays on the map.
    pub animation: Pace,
    /// Colours told apart by brightness and blue against orange, never red against
    /// green, and a glyph of its own for everything that shared one.
    pub high_contrast: bool,
    /// The server `sandglass submit` sends games to: only ever one the player named
    /// (`--server URL`, remembered here); with none, nothing is sent anywhere.
    pub server: Option<String>,
    /// The name the player's games are sent under (`--name NAME`, remembered here).
    pub player: Option<String>,
    /// Servers the player agreed to send to over plain HTTP (`--over-plain-http`),
    /// knowing that anyone on the way could read and take what is sent.
    pub plain_http: Vec<String>,
}

/// How quickly moves play on the map.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pace {
    Slow,
    #[default]
    Normal,
    Fast,
    /// Every move shown at once, where it ends.
    Off,
}

impl Pace {
    pub const ALL: [Pace; 4] = [Pace::Slow, Pace::Normal, Pace::Fast, Pace::Off];

    /// How long a move takes to play, against the normal pace.
    pub fn factor(self) -> f64 {
        match self {
            Pace::Slow => 2.0,
            Pace::Normal => 1.0,
            Pace::Fast => 0.4,
            Pace::Off => 0.0,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Pace::Slow => "slow",
            Pace::Normal => "normal",
            Pace::Fast => "fast",
            Pace::Off => "off",
        }
    }
}

/// Where settings live: `dir` if given (tests, portable installs), otherwise the
/// platform's config directory. `None` only if the platform has no home directory.
#[cfg(not(target_arch = "wasm32"))]
pub fn config_dir(dir: Option<&Path>) -> Option<PathBuf> {
    match dir {
        Some(dir) => Some(dir.to_path_buf()),
        None => ProjectDirs::from("", "", "sandglass").map(|p| p.config_dir().to_path_buf()),
    }
}

impl Settings {
    /// The settings saved in `dir`, or the defaults if there are none we can read.
    pub fn load(dir: &Path) -> Settings {
        fs::read_to_string(dir.join(FILE_NAME))
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default()
    }

    /// Writes the window's choices to `dir`, keeping what `sandglass submit` remembered
    /// there (the server, the player's name, plain HTTP agreed to), which the window never changes: a
    /// submit made while the window is open is not written over by the window's older
    /// copy of them.
    pub fn save_window_choices(&self, dir: &Path) -> io::Result<()> {
        let on_disk = Settings::load(dir);
        let settings = Settings {
            server: on_disk.server,
            player: on_disk.player,
            plain_http: on_disk.plain_http,
            ..self.clone()
        };
        settings.save(dir)
    }

    /// Writes the settings to `dir`, creating it if needed. The file is written beside
    /// its final name and then renamed over it, so a crash mid-write leaves the old
    /// settings rather than half a file.
    pub fn save(&self, dir: &Path) -> io::Result<()> {
        fs::create_dir_all(dir)?;
        let text = serde_json::to_string_pretty(self).map_err(io::Error::other)?;
        let partial = dir.join(format!("{FILE_NAME}.partial"));
        fs::write(&partial, text + "\n")?;
        fs::rename(&partial, dir.join(FILE_NAME))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saved_settings_load_back() {
        let dir = tempfile::tempdir().unwrap();
        let settings = Settings {
            panel_open: true,
            panel_at: Some([120.0, 340.5]),
            window: Some([1600, 900]),
            full_screen: true,
            glyph_size: Some(28),
            animation: Pace::Fast,
            high_contrast: true,
            server: Some("http://127.0.0.1:8080".into()),
            player: Some("camel".into()),
            plain_http: vec!["http://sandglass.example".into()],
        };
        settings.save(dir.path()).unwrap();
        assert_eq!(Settings::load(dir.path()), settings);
    }

    #[test]
    fn missing_file_gives_defaults() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Settings::load(dir.path()), Settings::default());
        let nowhere = dir.path().join("not").join("made");
        assert_eq!(Settings::load(&nowhere), Settings::default());
    }

    #[test]
    fn corrupt_file_gives_defaults() {
        let dir = tempfile::tempdir().unwrap();
        for junk in [
            "{\"panel_open\": tr",
            "",
            "[1, 2]",
            "{\"panel_open\": 3}",
            "\u{0}\u{ff}",
        ] {
            fs::write(dir.path().join(FILE_NAME), junk).unwrap();
            assert_eq!(Settings::load(dir.path()), Settings::default(), "{junk:?}");
        }
    }

    #[test]
    fn unknown_and_missing_fields_are_tolerated() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(
            dir.path().join(FILE_NAME),
            "{\"panel_open\": true, \"later\": 1}",
        )
        .unwrap();
        assert!(Settings::load(dir.path()).panel_open);
        fs::write(dir.path().join(FILE_NAME), "{}").unwrap();
        assert_eq!(Settings::load(dir.path()), Settings::default());
    }

    #[test]
    fn a_file_from_before_the_glyph_size_keeps_its_other_choices() {
        let dir = tempfile::tempdir().unwrap();
        let older = "{\"panel_open\": true, \"window\": [1600, 900], \"full_screen\": false}";
        fs::write(dir.path().join(FILE_NAME), older).unwrap();
        let settings = Settings::load(dir.path());
        assert!(settings.panel_open);
        assert_eq!(settings.window, Some([1600, 900]));
        assert_eq!(settings.glyph_size, None);
        assert_eq!(settings.animation, Pace::Normal);
        assert!(!settings.high_contrast);
    }

    #[test]
    fn save_creates_the_directory_and_replaces_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("config").join("sandglass");
        Settings {
            panel_open: true,
            ..Settings::default()
        }
        .save(&nested)
        .unwrap();
        Settings::default().save(&nested).unwrap();
        assert!(!Settings::load(&nested).panel_open);
        let names: Vec<_> = fs::read_dir(&nested)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [FILE_NAME]);
    }

    #[test]
    fn a_given_directory_overrides_the_platform_one() {
        let dir = Path::new("/tmp/somewhere");
        assert_eq!(config_dir(Some(dir)), Some(dir.to_path_buf()));
    }

    #[test]
    fn the_window_keeps_what_a_submit_remembered() {
        let dir = tempfile::tempdir().unwrap();
        let window = Settings::default();
        let submitted = Settings {
            server: Some("http://127.0.0.1:8080".into()),
            player: Some("camel".into()),
            ..Settings::default()
        };
        submitted.save(dir.path()).unwrap();
        let chosen = Settings {
            glyph_size: Some(28),
            ..window
        };
        chosen.save_window_choices(dir.path()).unwrap();
        let saved = Settings::load(dir.path());
        assert_eq!(saved.glyph_size, Some(28));
        assert_eq!(saved.server, submitted.server);
        assert_eq!(saved.player, submitted.player);
    }
}
