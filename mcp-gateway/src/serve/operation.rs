//! One client request as an operation the metrics count: how long it took,
//! how it ended, and which server it went to. A handler that routes a
//! request names its server with [`routed_to`]; [`measured`] runs the
//! handler with a place for that name and measures the operation, which
//! the connection records once the answer is out (feature `metrics`;
//! without it, `measured` only runs the handler).

use std::cell::RefCell;
use std::future::Future;

use mcpdisco_protocol::{ErrorObject, RawJson};

/// What counts the operations: the gateway's metrics (feature `metrics`);
/// nothing without it.
#[cfg(feature = "metrics")]
pub(crate) type Meter = crate::operations::metrics::GatewayMetrics;
/// What counts the operations: the gateway's metrics (feature `metrics`);
/// nothing without it.
#[cfg(not(feature = "metrics"))]
pub(crate) type Meter = ();

tokio::task_local! {
    /// The server the current request was routed to, if any.
    static ROUTED_TO: RefCell<Option<String>>;
}

/// Names the server the current request goes to (a no-op outside
/// [`measured`]).
pub(crate) fn routed_to(server: &str) {
    let _ = ROUTED_TO.try_with(|routed| *routed.borrow_mut() = Some(server.to_owned()));
}

/// One request's operation, measured when its answer was ready and
/// recorded on the meter once that answer is out ([`record`](Self::record)):
/// the recording (and reading the result for its outcome) is not on the
/// way of the answer. Empty without feature `metrics`.
pub(crate) struct Operation {
    #[cfg(feature = "metrics")]
    measured: Option<Measured>,
}

/// What [`Operation::record`] records.
#[cfg(feature = "metrics")]
struct Measured {
    server: Option<String>,
    method: String,
    elapsed: std::time::Duration,
    /// The result, for its outcome (`None`: an error).
    result: Option<RawJson>,
}

impl Operation {
    /// An operation that records nothing.
    #[cfg(any(test, not(feature = "metrics")))]
    pub(crate) fn none() -> Self {
        Self {
            #[cfg(feature = "metrics")]
            measured: None,
        }
    }

    /// Records it on `meter`.
    pub(crate) fn record(self, meter: &Meter) {
        #[cfg(feature = "metrics")]
        if let Some(measured) = self.measured {
            meter.record(
                measured.server.as_deref().unwrap_or_default(),
                &measured.method,
                outcome_of(measured.result.as_ref()),
                measured.elapsed,
            );
        }
        #[cfg(not(feature = "metrics"))]
        let _ = meter;
    }
}

/// Runs `work`, the handler of one `method` request: its answer, and the
/// operation to record once the answer is out.
pub(crate) async fn measured<F>(method: String, work: F) -> (F::Output, Operation)
where
    F: Future<Output = Result<RawJson, ErrorObject>>,
{
    #[cfg(feature = "metrics")]
    {
        let started = std::time::Instant::now();
        let (answer, server) = ROUTED_TO
            .scope(RefCell::new(None), async {
                let answer = work.await;
                let server = ROUTED_TO.with(|routed| routed.borrow_mut().take());
                (answer, server)
            })
            .await;
        let measured = Measured {
            server,
            method,
            elapsed: started.elapsed(),
            result: answer.as_ref().ok().cloned(),
        };
        let operation = Operation {
            measured: Some(measured),
        };
        (answer, operation)
    }
    #[cfg(not(feature = "metrics"))]
    {
        let _ = method;
        let answer = ROUTED_TO.scope(RefCell::new(None), work).await;
        (answer, Operation::none())
    }
}

/// How an operation ended, from its result (`None`: an error).
#[cfg(feature = "metrics")]
fn outcome_of(result: Option<&RawJson>) -> crate::operations::metrics::Outcome {
    use crate::operations::metrics::Outcome;
    use mcpdisco_protocol::raw::JsonView;
    match result {
        Some(result)
            if JsonView::of(result)
                .get("isError")
                .and_then(JsonView::as_bool)
                == Some(true) =>
        {
            Outcome::ToolError
        }
        Some(_) => Outcome::Ok,
        None => Outcome::Error,
    }
}

#[cfg(all(test, feature = "metrics"))]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_tool_result_marked_as_an_error_is_its_own_outcome() {
        use crate::operations::metrics::Outcome;
        let result = |value| RawJson::from_value(&value);
        assert_eq!(
            outcome_of(Some(&result(json!({"content": []})))),
            Outcome::Ok
        );
        assert_eq!(
            outcome_of(Some(&result(json!({"content": [], "isError": true})))),
            Outcome::ToolError
        );
        assert_eq!(outcome_of(None), Outcome::Error);
    }
}
