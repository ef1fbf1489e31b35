//! How stdout is written: colour only on a terminal and never when
//! `NO_COLOR` is set, and lines no wider than the terminal.

use std::io::IsTerminal;

use console::Term;

/// Whether to colour stdout, and how wide its lines may be.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    colour: bool,
    line_width: Option<usize>,
}

impl Style {
    /// Colour when stdout is a terminal and `NO_COLOR` is unset or empty;
    /// the terminal's width when stdout is one.
    pub fn detect() -> Self {
        let no_colour = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let terminal = std::io::stdout().is_terminal();
        let line_width = terminal
            .then(|| Term::stdout().size_checked())
            .flatten()
            .map(|(_rows, columns)| usize::from(columns));
        Self {
            colour: !no_colour && terminal,
            line_width,
        }
    }

    /// Plain text always, lines of any width.
    #[cfg(test)]
    pub fn plain() -> Self {
        Self {
            colour: false,
            line_width: None,
        }
    }

    /// The widest a line of an item list may be: the terminal's width, or
    /// `None` when stdout is not a terminal.
    pub fn line_width(self) -> Option<usize> {
        self.line_width
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// Bold.
    pub fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }

    /// Green.
    pub fn good(self, text: &str) -> String {
        self.paint("32", text)
    }

    /// Red.
    pub fn bad(self, text: &str) -> String {
        self.paint("31", text)
    }

    /// Dim.
    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }
}
