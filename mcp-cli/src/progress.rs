//! The progress display on stderr while several servers are discovered.

use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::sync::Arc;

use mcpdisco_client::transport::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mcpdisco::discovery::{DiscoveryEvent, DiscoveryObserver, ServerStatus};

/// A progress bar over the enabled servers, drawn only when stderr is a terminal.
pub struct Progress {
    bar: ProgressBar,
    running: Mutex<BTreeSet<String>>,
}

impl Progress {
    /// A display for `total` servers, or `None` when stderr is not a terminal or there is one server.
    pub fn start(total: usize) -> Option<Arc<Self>> {
        if total < 2 || !std::io::stderr().is_terminal() {
            return None;
        }
        let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template("{spinner} [{pos}/{len}] {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(100));
        Some(Arc::new(Self {
            bar,
            running: Mutex::new(BTreeSet::new()),
        }))
    }

    /// The observer that feeds this display.
    pub fn observer(self: &Arc<Self>) -> DiscoveryObserver {
        let progress = Arc::clone(self);
        Arc::new(move |event| progress.on(event))
    }

    fn on(&self, event: DiscoveryEvent<'_>) {
        let mut running = self.running.lock();
        match event {
            DiscoveryEvent::Started { server } => {
                running.insert(server.to_owned());
            }
            DiscoveryEvent::Finished { report } => {
                running.remove(&report.name);
                if report.status != ServerStatus::Disabled {
                    self.bar.inc(1);
                }
                if report.status == ServerStatus::Failed {
                    self.bar.println(format!("{}: failed", report.name));
                }
            }
            _ => {}
        }
        let names: Vec<&str> = running.iter().map(String::as_str).take(6).collect();
        let more = running.len().saturating_sub(names.len());
        let suffix = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        self.bar
            .set_message(format!("waiting for {}{suffix}", names.join(", ")));
    }

    /// Removes the display.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
