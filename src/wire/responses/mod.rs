//! The Responses API (`POST /v1/responses`): a second encoder of the same
//! conversation and a second decoder into the same [`Reply`](crate::Reply).

pub(crate) mod events;
pub(crate) mod request;
pub(crate) mod response;
