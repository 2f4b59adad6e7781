//! One handler per notification that changes the analysis. Each says what to publish
//! now and when the pending checks should run.

use std::time::Duration;

use lsp_types::PublishDiagnosticsParams;

pub mod did_change;
pub mod did_change_watched_files;
pub mod did_close;
pub mod did_open;
pub mod did_save;

/// What a notification leaves to the server.
#[derive(Default)]
pub struct After {
    pub publish: Vec<PublishDiagnosticsParams>,
    /// Run the pending checks after this delay (`None`: nothing new to check).
    pub check_in: Option<Duration>,
}

impl After {
    fn check(delay: Duration, publish: Vec<PublishDiagnosticsParams>) -> Self {
        Self {
            publish,
            check_in: Some(delay),
        }
    }
}
