//! The gateway's lists (`tools/list`, `prompts/list`, `resources/list`,
//! `resources/templates/list`, `skills/list`): every ready server's items
//! as the [`listing`](super::listing) serves them, paginated; and
//! `skills/get`, one served skill by its URI.

use mcpdisco_protocol::ErrorCode;
use mcpdisco_protocol::ErrorObject;
use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::server;
use mcpdisco_protocol::types::{
    CacheScope, GetSkillParams, GetSkillResult, ListResult, PaginatedParams,
};
use mcpdisco_protocol::version::Era;

use super::context::RequestContext;
use super::listing::ServedList;

/// One page of the list `M`. Modern pages say they are stale at once and
/// this gateway's own: the lists change as servers come and go, and
/// reflect its filters and its servers.
pub(crate) async fn list<M>(
    params: PaginatedParams,
    request: RequestContext,
) -> Result<M::Result, ErrorObject>
where
    M: RequestMethod<Params = PaginatedParams>,
    M::Result: ServedList,
{
    let listing = request
        .shared
        .listings
        .listing(request.profile.as_ref())
        .await;
    let items = <M::Result as ServedList>::items(&listing);
    let page_size = Some(request.shared.options.page_size);
    let page: M::Result = server::list_page(items, params.cursor.as_deref(), page_size)?;
    Ok(match request.era {
        Era::Modern => page.cached(0, CacheScope::Private),
        Era::Legacy => page,
    })
}

/// `skills/get`: the served entry of the skill whose `SKILL.md` is at the
/// served URI; -32602 for a URI that names no served skill.
pub(crate) async fn get_skill(
    params: GetSkillParams,
    request: RequestContext,
) -> Result<GetSkillResult, ErrorObject> {
    let listing = request
        .shared
        .listings
        .listing(request.profile.as_ref())
        .await;
    match listing.skill(&params.uri) {
        Some(skill) => Ok(GetSkillResult {
            skill: skill.clone(),
            meta: None,
            extra: Default::default(),
        }),
        None => Err(ErrorObject::new(
            ErrorCode::INVALID_PARAMS,
            "no served skill has that URI",
        )),
    }
}
