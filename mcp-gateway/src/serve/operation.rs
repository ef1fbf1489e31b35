//! One client request as an operation the metrics count: how long it took,
//! how it ended, and which server it went to. A handler that routes a
//! request names its server with [`routed_to`]; [`measured`] runs the
//! handler with a place for that name and records the operation (feature
//! `metrics`; without it, `measured` only runs the handler).

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

/// Runs `work`, the handler of one `method` request, and records it on `meter`.
pub(crate) async fn measured<F>(meter: &Meter, method: &str, work: F) -> F::Output
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
        meter.record(
            server.as_deref().unwrap_or_default(),
            method,
            outcome_of(&answer),
            started.elapsed(),
        );
        answer
    }
    #[cfg(not(feature = "metrics"))]
    {
        let _ = meter;
        let _ = method;
        ROUTED_TO.scope(RefCell::new(None), work).await
    }
}

#[cfg(feature = "metrics")]
fn outcome_of(answer: &Result<RawJson, ErrorObject>) -> crate::operations::metrics::Outcome {
    use crate::operations::metrics::Outcome;
    use mcpdisco_protocol::raw::JsonView;
    match answer {
        Ok(result)
            if JsonView::of(result)
                .get("isError")
                .and_then(JsonView::as_bool)
                == Some(true) =>
        {
            Outcome::ToolError
        }
        Ok(_) => Outcome::Ok,
        Err(_) => Outcome::Error,
    }
}

#[cfg(all(test, feature = "metrics"))]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_tool_result_marked_as_an_error_is_its_own_outcome() {
        use crate::operations::metrics::Outcome;
        let result = |value| Ok(RawJson::from_value(&value));
        assert_eq!(outcome_of(&result(json!({"content": []}))), Outcome::Ok);
        assert_eq!(
            outcome_of(&result(json!({"content": [], "isError": true}))),
            Outcome::ToolError
        );
        let error = ErrorObject::new(mcpdisco_protocol::ErrorCode::INTERNAL_ERROR, "down");
        assert_eq!(outcome_of(&Err(error)), Outcome::Error);
    }
}
