//! Item lists as aligned columns, one line per item: quick to write for
//! thousands of items, and easy to `grep` and `cut`. On a terminal a line is
//! cut to its width (`…`), not wrapped; `--json` or a pipe shows it whole.
//!
//! The overview tables (a row per server) are drawn by comfy-table, which
//! wraps cells to the terminal; for item lists it took a third of a cached
//! `mcp-cli tools` over 2 500 tools, so they are laid out here instead.
//! Widths come from `console`, which knows wide characters and skips ANSI styles.

use console::{measure_text_width, truncate_str};

/// How lines of columns are laid out.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// Spaces before each line.
    pub indent: usize,
    /// The widest a padded column gets: a longer cell pushes the rest of its
    /// line to the right.
    pub max_cell_width: usize,
    /// The widest a line gets, cut with `…` (the terminal's width); `None` for no limit.
    pub max_line_width: Option<usize>,
}

/// Appends `rows` to `out`, a line each: every column but the last is padded
/// to its widest cell (at most `layout.max_cell_width`), and cells are two spaces apart.
/// Cells may carry ANSI styles, which take no width.
pub fn write(out: &mut String, rows: &[Vec<String>], layout: Layout) {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0; columns.saturating_sub(1)];
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(measure_text_width(cell).min(layout.max_cell_width));
        }
    }
    let mut line = String::new();
    for row in rows {
        line.clear();
        line.extend(std::iter::repeat_n(' ', layout.indent));
        for (index, cell) in row.iter().enumerate() {
            if index > 0 {
                line.push_str("  ");
            }
            line.push_str(cell);
            if index + 1 < row.len() {
                let pad = widths[index].saturating_sub(measure_text_width(cell));
                line.extend(std::iter::repeat_n(' ', pad));
            }
        }
        line.truncate(line.trim_end().len());
        match layout.max_line_width {
            Some(width) => out.push_str(&truncate_str(&line, width, "…")),
            None => out.push_str(&line),
        }
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: &[&str]) -> Vec<String> {
        cells.iter().map(|cell| (*cell).to_owned()).collect()
    }

    fn written(rows: &[Vec<String>], layout: Layout) -> String {
        let mut out = String::new();
        write(&mut out, rows, layout);
        out
    }

    const WIDE: Layout = Layout {
        indent: 0,
        max_cell_width: 60,
        max_line_width: None,
    };

    #[test]
    fn columns_are_padded_to_their_widest_cell() {
        let rows = [
            row(&["NAME", "SIGNATURE", "DESCRIPTION"]),
            row(&["a__x", "x(n: number)", "Adds."]),
            row(&["b__longer", "y()", ""]),
        ];
        assert_eq!(
            written(&rows, WIDE),
            "NAME       SIGNATURE     DESCRIPTION\n\
             a__x       x(n: number)  Adds.\n\
             b__longer  y()\n"
        );
    }

    #[test]
    fn wide_characters_and_styles_take_their_shown_width() {
        let rows = [
            row(&["\x1b[1mN\x1b[0m", "z"]),
            row(&["日本", "z"]),
            row(&["ab", "z"]),
        ];
        assert_eq!(
            written(&rows, Layout { indent: 2, ..WIDE }),
            "  \x1b[1mN\x1b[0m     z\n  日本  z\n  ab    z\n"
        );
    }

    #[test]
    fn long_cells_are_capped_and_lines_cut_to_fit() {
        let long = "x".repeat(20);
        let rows = [row(&[&long, "after"]), row(&["s", "after"])];
        let capped = written(
            &rows,
            Layout {
                max_cell_width: 4,
                ..WIDE
            },
        );
        assert_eq!(capped, format!("{long}  after\ns     after\n"));
        let cut = written(
            &rows,
            Layout {
                max_cell_width: 4,
                max_line_width: Some(10),
                ..WIDE
            },
        );
        assert_eq!(cut, "xxxxxxxxx…\ns     aft…\n");
    }
}
