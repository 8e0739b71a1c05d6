//! [`BatchState`]: where a batch stands in its life cycle, as the provider
//! names it, and [`BatchCounts`], how many of its requests have run.

use crate::error::{Error, Result};

/// Where a batch stands, as the provider's batch object says (`status`).
///
/// A batch goes `Validating` → `InProgress` → `Finalizing` → `Completed`;
/// or `Validating` → `Failed` (the input file was refused: see
/// [`Batch::errors`](crate::Batch::errors)); or, past its 24 hours,
/// → `Expired` (what ran has results); or, cancelled, `Cancelling` →
/// `Cancelled` (likewise).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BatchState {
    /// The input file is being checked.
    Validating,
    /// The input file was refused; no request ran.
    Failed,
    /// The requests are running.
    InProgress,
    /// Every request has run; the result files are being written.
    Finalizing,
    /// Done: the results can be fetched.
    Completed,
    /// The completion window ran out; what ran has results, the rest none.
    Expired,
    /// Cancelled; the requests under way are finishing.
    Cancelling,
    /// Cancelled: what ran has results, the rest none.
    Cancelled,
}

impl BatchState {
    /// The state a batch object's `status` names.
    pub(crate) fn from_wire(status: &str) -> Result<BatchState> {
        Ok(match status {
            "validating" => BatchState::Validating,
            "failed" => BatchState::Failed,
            "in_progress" => BatchState::InProgress,
            "finalizing" => BatchState::Finalizing,
            "completed" => BatchState::Completed,
            "expired" => BatchState::Expired,
            "cancelling" => BatchState::Cancelling,
            "cancelled" => BatchState::Cancelled,
            other => {
                let message = format!("a batch status chatwire does not know: {other:?}");
                return Err(Error::decode(message, other));
            }
        })
    }

    /// The provider's name of the state (`in_progress`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            BatchState::Validating => "validating",
            BatchState::Failed => "failed",
            BatchState::InProgress => "in_progress",
            BatchState::Finalizing => "finalizing",
            BatchState::Completed => "completed",
            BatchState::Expired => "expired",
            BatchState::Cancelling => "cancelling",
            BatchState::Cancelled => "cancelled",
        }
    }

    /// Whether the batch will change no more: its results (if any) are final.
    pub fn has_ended(self) -> bool {
        matches!(
            self,
            BatchState::Failed
                | BatchState::Completed
                | BatchState::Expired
                | BatchState::Cancelled
        )
    }
}

/// How many of a batch's requests have run, as of the last refresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct BatchCounts {
    /// Requests that got a successful answer.
    pub completed: u64,
    /// Requests that failed.
    pub failed: u64,
    /// Every request of the batch.
    pub total: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_state_reads_back_as_its_name() {
        for name in [
            "validating",
            "failed",
            "in_progress",
            "finalizing",
            "completed",
            "expired",
            "cancelling",
            "cancelled",
        ] {
            assert_eq!(BatchState::from_wire(name).unwrap().as_str(), name);
        }
        assert!(matches!(
            BatchState::from_wire("paused"),
            Err(Error::Decode { .. })
        ));
    }
}
