//! W3C trace context in `params._meta` (SEP-414): a span's context as a
//! [`TraceContext`], and a carried one as the remote parent of a span.

use mcpdisco_protocol::meta::TraceContext;
use opentelemetry::Context;
use opentelemetry::trace::{SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState};

/// The `traceparent` (and `tracestate`, when it has entries) of `context`;
/// `None` for an invalid (unsampled no-op) context.
pub fn to_carrier(context: &SpanContext) -> Option<TraceContext> {
    if !context.is_valid() {
        return None;
    }
    let traceparent = format!(
        "00-{}-{}-{:02x}",
        context.trace_id(),
        context.span_id(),
        context.trace_flags().to_u8() & TraceFlags::SAMPLED.to_u8()
    );
    let state = context.trace_state().header();
    Some(TraceContext {
        traceparent,
        tracestate: (!state.is_empty()).then_some(state),
    })
}

/// The remote span context a `traceparent` names, when it is well formed
/// (W3C Trace Context level 1: version `00` exactly 55 characters; a later
/// version read by its first four fields; `ff` and all-zero ids refused).
pub fn from_carrier(carried: &TraceContext) -> Option<SpanContext> {
    let text = carried.traceparent.trim();
    let mut parts = text.split('-');
    let version = parts.next()?;
    let trace_id = parts.next()?;
    let span_id = parts.next()?;
    let flags = parts.next()?;
    let is_hex = |part: &str, len: usize| {
        part.len() == len
            && part
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    if !is_hex(version, 2) || version == "ff" || !is_hex(trace_id, 32) || !is_hex(span_id, 16) {
        return None;
    }
    if version == "00" && (parts.next().is_some() || text.len() != 55) {
        return None;
    }
    if !is_hex(flags, 2) {
        return None;
    }
    let trace_id = TraceId::from_hex(trace_id).ok()?;
    let span_id = SpanId::from_hex(span_id).ok()?;
    if trace_id == TraceId::INVALID || span_id == SpanId::INVALID {
        return None;
    }
    let flags = u8::from_str_radix(flags, 16).ok()? & TraceFlags::SAMPLED.to_u8();
    let state = carried
        .tracestate
        .as_deref()
        .and_then(|state| state.parse::<TraceState>().ok())
        .unwrap_or_default();
    Some(SpanContext::new(
        trace_id,
        span_id,
        TraceFlags::new(flags),
        true,
        state,
    ))
}

/// `parent` with the carried context as its remote parent span, when it is
/// well formed; `parent` unchanged otherwise.
pub fn with_remote_parent(parent: &Context, carried: Option<&TraceContext>) -> Context {
    match carried.and_then(from_carrier) {
        Some(remote) => parent.with_remote_span_context(remote),
        None => parent.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_traceparent_round_trips() {
        let carried = TraceContext {
            traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".into(),
            tracestate: Some("congo=t61rcWkgMzE".into()),
        };
        let context = from_carrier(&carried).unwrap();
        assert!(context.is_remote() && context.is_sampled());
        assert_eq!(to_carrier(&context).unwrap(), carried);
    }

    #[test]
    fn malformed_traceparents_are_refused() {
        for bad in [
            "",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
            "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",
        ] {
            let carried = TraceContext {
                traceparent: bad.into(),
                tracestate: None,
            };
            assert!(from_carrier(&carried).is_none(), "{bad}");
        }
        // A later version may add fields.
        let later = TraceContext {
            traceparent: "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-what".into(),
            tracestate: None,
        };
        assert!(from_carrier(&later).is_some());
    }
}
