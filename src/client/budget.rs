//! The token budget every send runs through: the request is made from a copy
//! without what the budget leaves out, untouched until the answer is appended.

use std::borrow::Cow;

use ::log::Level;

use crate::conversation::budget::Trim;
use crate::conversation::Conversation;
use crate::error::{Error, Result};
use crate::log;
use crate::wire;
use crate::wire::request::Delivery;

/// A conversation on its way out, and what its budget left out of it.
pub(crate) struct Outgoing<'c> {
    pub(super) sent: Cow<'c, Conversation>,
    pub(super) trim: Option<Trim>,
}

impl<'c> Outgoing<'c> {
    /// Checks that the conversation can be sent and plans what its budget
    /// leaves out (see [`Conversation::plan_trim`]).
    pub(crate) fn plan(conversation: &'c Conversation) -> Result<Outgoing<'c>> {
        conversation.check_ready_to_send()?;
        let trim = conversation.plan_trim()?;
        let sent = match &trim {
            None => Cow::Borrowed(conversation),
            Some(trim) => {
                log::line(
                    Level::Info,
                    format_args!(
                        "dropping the {} oldest messages of {}: the conversation is estimated \
                         at {} tokens, over its token budget of {}; {} tokens are sent",
                        trim.dropped(),
                        conversation.len(),
                        trim.tokens_before,
                        conversation.token_budget().unwrap_or_default(),
                        trim.tokens_after
                    ),
                );
                Cow::Owned(conversation.selection(trim))
            }
        };
        Ok(Outgoing { sent, trim })
    }

    /// The same, owning what it sends, for a worker thread.
    pub(crate) fn into_owned(self) -> Outgoing<'static> {
        Outgoing {
            sent: Cow::Owned(self.sent.into_owned()),
            trim: self.trim,
        }
    }

    /// Makes the request, its body encoded for `delivery`, with `post`; when
    /// the server answers [`Error::ContextLength`] under a budget, more old
    /// exchanges are left out and `post` runs once more. Gives what `post`
    /// gave, and all that the request left out, for the append.
    pub(crate) fn send<R>(
        self,
        delivery: Delivery,
        mut post: impl FnMut(&[u8]) -> Result<R>,
    ) -> Result<(R, Option<Trim>)> {
        let mut post = |sent: &Conversation| post(&wire::request::encode(sent, delivery));
        match post(&self.sent) {
            Err(Error::ContextLength(api)) if self.sent.token_budget().is_some() => {
                let Some(more) = self.sent.plan_retry() else {
                    return Err(Error::ContextLength(api));
                };
                log::warn(format_args!(
                    "the server says the conversation is longer than the context window \
                     ({}); dropping the {} oldest messages left and trying once more \
                     (estimated {} tokens)",
                    api.message,
                    more.dropped(),
                    more.tokens_after
                ));
                let outcome = post(&self.sent.selection(&more))?;
                Ok((outcome, Some(Trim::then(self.trim, more))))
            }
            outcome => outcome.map(|outcome| (outcome, self.trim)),
        }
    }
}
