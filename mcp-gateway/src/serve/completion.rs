//! `completion/complete` (both eras), routed to the server of what it
//! completes: a `ref/prompt` by the prompt's served name (in the client's
//! view, as `prompts/get`), a `ref/resource` by its served URI or URI
//! template (as `resources/read`). The server is asked in its own names
//! and its result is the answer; a server that does not complete answers
//! its own error, which names it.

use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::Complete;
use mcpdisco_protocol::types::{CompleteParams, CompleteResult, CompletionReference};
use mcpdisco_protocol::{ErrorCode, ErrorObject};

use super::calls::resolve_in_view;
use super::context::RequestContext;
use super::listing::ResourceRoute;
use super::upstream;
use mcpdisco_client::session::ListKind;

/// `completion/complete` of a served prompt's argument or a served
/// template's variable. A `ref` of another kind is -32602 naming it.
pub(crate) async fn complete(
    mut params: CompleteParams,
    request: RequestContext,
) -> Result<CompleteResult, ErrorObject> {
    let (server, own) = match params.reference {
        CompletionReference::Prompt { name, extra } => {
            let (server, own) = resolve_in_view(&request, ListKind::Prompts, &name).await?;
            (server, CompletionReference::Prompt { name: own, extra })
        }
        CompletionReference::Resource { uri, extra } => {
            let ResourceRoute { server, uri: own } = request
                .shared
                .listings
                .route_resource(request.profile.as_ref(), &uri)
                .await
                .ok_or_else(|| {
                    ErrorObject::for_resource(
                        ErrorCode::INVALID_PARAMS,
                        format!("no server of the gateway offers the resource {uri}"),
                        &uri,
                    )
                })?;
            (server, CompletionReference::Resource { uri: own, extra })
        }
        CompletionReference::Unknown(reference) => {
            return Err(ErrorObject::new(
                ErrorCode::INVALID_PARAMS,
                format!("{}: unknown ref {reference}", Complete::METHOD),
            ));
        }
    };
    params.reference = own;
    // The client's own `_meta` (its era, its capabilities) is not the server's.
    params.meta = None;
    super::operation::routed_to(&server);
    upstream::complete(&request.shared.supervisor, &server, &params).await
}
