//! A typed router for MCP servers: each request method is answered by a
//! handler written against its `mcp-protocol` types, and each notification
//! goes to a handler of its own.
//!
//! ```
//! use mcpdisco_protocol::ErrorObject;
//! use mcpdisco_protocol::methods::{Initialized, ListTools, Ping};
//! use mcpdisco_protocol::types::{EmptyResult, ListToolsResult, MetaParams, PaginatedParams};
//! use mcpdisco_transport::server::Router;
//!
//! /// What each handler is given besides its params (here, nothing).
//! #[derive(Clone)]
//! struct Context;
//!
//! async fn ping(_: MetaParams, _: Context) -> Result<EmptyResult, ErrorObject> {
//!     Ok(EmptyResult::default())
//! }
//!
//! async fn list_tools(_: PaginatedParams, _: Context) -> Result<ListToolsResult, ErrorObject> {
//!     Ok(mcpdisco_protocol::types::ListResult::page(Default::default(), None))
//! }
//!
//! async fn initialized(_: MetaParams, _: Context) {}
//!
//! # async fn demo() {
//! let router = Router::new()
//!     .on::<Ping>(ping)
//!     .on::<ListTools>(list_tools)
//!     .on_notification::<Initialized>(initialized);
//! let tools = router.request("tools/list", None, Context).await.unwrap();
//! assert_eq!(tools["tools"], serde_json::Value::Array(Vec::new()));
//! let unknown = router.request("tools/call", None, Context).await.unwrap_err();
//! assert_eq!(unknown.code, mcpdisco_protocol::ErrorCode::METHOD_NOT_FOUND);
//! # }
//! ```
//!
//! The router decodes a request's params into the method's `Params` type (a
//! malformed one is -32602, naming the fault), runs the handler, and
//! encodes what it returns: the method's `Result`, or an [`Answer`] when the
//! handler may ask for the client's input first (2026-07-28). A handler
//! registered with [`Router::on_reply`] may instead answer with a result
//! that is already JSON text ([`Reply::Encoded`]: a gateway passing on a
//! server's result as the bytes it sent), which is sent as it is. A method
//! nobody handles is -32601. It knows nothing of eras, sessions or
//! connections: whatever a handler needs of those comes in its context `C`,
//! which the server builds for each message.

use foldhash::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcpdisco_protocol::method::{NotificationMethod, RequestMethod};
use mcpdisco_protocol::types::Answer;
use mcpdisco_protocol::{ErrorCode, ErrorObject, RawJson};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// A future a handler returns, boxed so the router can keep handlers of every method.
type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// A request handler as the router keeps it: params as sent in, the result as JSON text out.
type ErasedRequest<C> =
    Arc<dyn Fn(Option<RawJson>, C) -> BoxFuture<Result<RawJson, ErrorObject>> + Send + Sync>;

/// A notification handler as the router keeps it: the params are decoded
/// before its work is returned.
type ErasedNotification<C> =
    Arc<dyn Fn(Option<Value>, C) -> Result<BoxFuture<()>, ErrorObject> + Send + Sync>;

/// Answers the request method `M` with the context `C`: any `Fn(M::Params,
/// C)` returning a future of `Result<R, ErrorObject>`, where `R` is
/// `M::Result` or an [`Answer`] of it. An `async fn` of that signature is one.
pub trait RequestHandler<M: RequestMethod, C>: Send + Sync + 'static {
    /// Answers one request.
    fn answer(
        &self,
        params: M::Params,
        context: C,
    ) -> BoxFuture<Result<Answer<M::Result>, ErrorObject>>;
}

impl<M, C, F, Fut, R> RequestHandler<M, C> for F
where
    M: RequestMethod,
    F: Fn(M::Params, C) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, ErrorObject>> + Send + 'static,
    R: Into<Answer<M::Result>>,
{
    fn answer(
        &self,
        params: M::Params,
        context: C,
    ) -> BoxFuture<Result<Answer<M::Result>, ErrorObject>> {
        let work = self(params, context);
        Box::pin(async move { work.await.map(Into::into) })
    }
}

/// What a handler registered with [`Router::on_reply`] answers with.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply<R> {
    /// A typed answer, which the router encodes.
    Typed(Answer<R>),
    /// A result that is already JSON text, sent as it is: a server's result
    /// that a gateway passes on as the bytes it sent (masked), unchecked
    /// against the method's result type.
    Encoded(RawJson),
}

impl<R> From<Answer<R>> for Reply<R> {
    fn from(answer: Answer<R>) -> Self {
        Reply::Typed(answer)
    }
}

/// Answers the request method `M` with the context `C` as a [`Reply`]: any
/// `Fn(M::Params, C)` returning a future of `Result<Reply<M::Result>,
/// ErrorObject>`.
pub trait ReplyHandler<M: RequestMethod, C>: Send + Sync + 'static {
    /// Answers one request.
    fn reply(
        &self,
        params: M::Params,
        context: C,
    ) -> BoxFuture<Result<Reply<M::Result>, ErrorObject>>;
}

impl<M, C, F, Fut> ReplyHandler<M, C> for F
where
    M: RequestMethod,
    F: Fn(M::Params, C) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Reply<M::Result>, ErrorObject>> + Send + 'static,
{
    fn reply(
        &self,
        params: M::Params,
        context: C,
    ) -> BoxFuture<Result<Reply<M::Result>, ErrorObject>> {
        Box::pin(self(params, context))
    }
}

/// Handles the notification method `N` with the context `C`: any
/// `Fn(N::Params, C)` returning a future of `()`.
pub trait NotificationHandler<N: NotificationMethod, C>: Send + Sync + 'static {
    /// Handles one notification.
    fn handle(&self, params: N::Params, context: C) -> BoxFuture<()>;
}

impl<N, C, F, Fut> NotificationHandler<N, C> for F
where
    N: NotificationMethod,
    F: Fn(N::Params, C) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    fn handle(&self, params: N::Params, context: C) -> BoxFuture<()> {
        Box::pin(self(params, context))
    }
}

/// Handlers by method name, for requests and for notifications, each given
/// a context `C` per message. Cheap to clone.
pub struct Router<C> {
    requests: HashMap<&'static str, ErasedRequest<C>>,
    notifications: HashMap<&'static str, ErasedNotification<C>>,
}

impl<C> Clone for Router<C> {
    fn clone(&self) -> Self {
        Self {
            requests: self.requests.clone(),
            notifications: self.notifications.clone(),
        }
    }
}

impl<C> Default for Router<C> {
    fn default() -> Self {
        Self {
            requests: HashMap::default(),
            notifications: HashMap::default(),
        }
    }
}

impl<C> fmt::Debug for Router<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut requests: Vec<&str> = self.requests.keys().copied().collect();
        let mut notifications: Vec<&str> = self.notifications.keys().copied().collect();
        requests.sort_unstable();
        notifications.sort_unstable();
        f.debug_struct("Router")
            .field("requests", &requests)
            .field("notifications", &notifications)
            .finish()
    }
}

impl<C: Send + 'static> Router<C> {
    /// A router that handles nothing: every request is -32601.
    pub fn new() -> Self {
        Self::default()
    }

    /// Answers requests of method `M` with `handler` (replacing any handler
    /// `M` had).
    pub fn on<M: RequestMethod>(mut self, handler: impl RequestHandler<M, C>) -> Self {
        let handler = Arc::new(handler);
        let erased: ErasedRequest<C> = Arc::new(move |params, context| {
            let handler = Arc::clone(&handler);
            Box::pin(async move {
                let params = decode_raw::<M::Params>(M::METHOD, params)?;
                let answer = handler.answer(params, context).await?;
                encode::<M>(&answer)
            })
        });
        self.requests.insert(M::METHOD, erased);
        self
    }

    /// Answers requests of method `M` with `handler`, which may answer with
    /// a result that is already JSON text ([`Reply::Encoded`], sent as it
    /// is) as well as a typed one (replacing any handler `M` had).
    pub fn on_reply<M: RequestMethod>(mut self, handler: impl ReplyHandler<M, C>) -> Self {
        let handler = Arc::new(handler);
        let erased: ErasedRequest<C> = Arc::new(move |params, context| {
            let handler = Arc::clone(&handler);
            Box::pin(async move {
                let params = decode_raw::<M::Params>(M::METHOD, params)?;
                match handler.reply(params, context).await? {
                    Reply::Typed(answer) => encode::<M>(&answer),
                    Reply::Encoded(text) => Ok(text),
                }
            })
        });
        self.requests.insert(M::METHOD, erased);
        self
    }

    /// Handles notifications of method `N` with `handler` (replacing any
    /// handler `N` had).
    pub fn on_notification<N: NotificationMethod>(
        mut self,
        handler: impl NotificationHandler<N, C>,
    ) -> Self {
        let handler = Arc::new(handler);
        let erased: ErasedNotification<C> = Arc::new(move |params, context| {
            let params = decode::<N::Params>(N::METHOD, params)?;
            Ok(handler.handle(params, context))
        });
        self.notifications.insert(N::METHOD, erased);
        self
    }

    /// Whether requests of `method` have a handler.
    pub fn handles(&self, method: &str) -> bool {
        self.requests.contains_key(method)
    }

    /// The answer to one request as the JSON text to send: its handler's
    /// result, encoded (or as the handler gave it, [`Reply::Encoded`]);
    /// -32601 for a method without a handler, -32602 for params its type
    /// cannot read. The future owns what it needs, so it can be spawned.
    pub fn answer(
        &self,
        method: &str,
        params: Option<RawJson>,
        context: C,
    ) -> impl Future<Output = Result<RawJson, ErrorObject>> + Send + 'static {
        let work = match self.requests.get(method) {
            Some(handler) => Ok(handler(params, context)),
            None => Err(ErrorObject::method_not_found(method)),
        };
        async move { work?.await }
    }

    /// Like [`answer`](Self::answer), the result read back as a JSON value,
    /// for a caller that looks inside it.
    pub fn request(
        &self,
        method: &str,
        params: Option<RawJson>,
        context: C,
    ) -> impl Future<Output = Result<Value, ErrorObject>> + Send + 'static {
        let answer = self.answer(method, params, context);
        async move {
            answer.await?.to_value().map_err(|error| {
                ErrorObject::new(
                    ErrorCode::INTERNAL_ERROR,
                    format!("could not read the result back: {error}"),
                )
            })
        }
    }

    /// Handles one notification. A method without a handler is -32601 and
    /// params its type cannot read are -32602, for the caller to log: a
    /// notification gets no answer.
    pub fn notification(
        &self,
        method: &str,
        params: Option<Value>,
        context: C,
    ) -> impl Future<Output = Result<(), ErrorObject>> + Send + 'static {
        let work = match self.notifications.get(method) {
            Some(handler) => handler(params, context),
            None => Err(ErrorObject::method_not_found(method)),
        };
        async move {
            work?.await;
            Ok(())
        }
    }
}

/// The JSON text of `M`'s answer, or -32603 naming the fault.
fn encode<M: RequestMethod>(answer: &Answer<M::Result>) -> Result<RawJson, ErrorObject> {
    RawJson::encode(answer).map_err(|error| {
        ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            format!("{}: could not write the result: {error}", M::METHOD),
        )
    })
}

/// Reads a request's `params` as sent (absent or `null` reads as `{}`) as
/// `T`, or -32602 naming the fault.
fn decode_raw<T: DeserializeOwned>(
    method: &str,
    params: Option<RawJson>,
) -> Result<T, ErrorObject> {
    let decoded = match &params {
        Some(params) if params.as_str() != "null" => params.decode(),
        _ => serde_json::from_str("{}"),
    };
    decoded.map_err(|error| invalid_params(method, &error))
}

/// Reads a notification's `params` (absent or `null` reads as `{}`) as `T`,
/// or -32602 naming the fault.
fn decode<T: DeserializeOwned>(method: &str, params: Option<Value>) -> Result<T, ErrorObject> {
    let params = match params {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(params) => params,
    };
    serde_json::from_value(params).map_err(|error| invalid_params(method, &error))
}

/// The -32602 error of params that `method`'s type cannot read.
fn invalid_params(method: &str, error: &serde_json::Error) -> ErrorObject {
    ErrorObject::new(
        ErrorCode::INVALID_PARAMS,
        format!("{method}: invalid params: {error}"),
    )
}

#[cfg(test)]
mod tests;
