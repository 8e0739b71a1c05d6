//! A connection's buffers, grown as a request needs them. What ureq lacks:
//! its buffers are made whole at once, and a head must fit the input, so a
//! thousand requests in flight would hold the header limit each (a hundred
//! MiB) where nearly every answer needs a few KiB; and a worker lets the
//! output go before it waits ([`GrowingBuffers::release_output`]).

use ureq::unversioned::transport::Buffers;

/// The input buffer's first size: a response's head and its body's first
/// pieces.
const FIRST_INPUT: usize = 4 * 1024;
/// The input buffer grows once less than this is free for the next read.
const MIN_FREE: usize = 2 * 1024;

/// ureq's [`Buffers`], with an input buffer that starts small and doubles
/// up to `input_max` when a read would find it (nearly) full.
#[derive(Debug)]
pub(crate) struct GrowingBuffers {
    input: Vec<u8>,
    filled: usize,
    consumed: usize,
    input_max: usize,
    output: Vec<u8>,
    output_size: usize,
    /// Whether the last consume took anything (see [`Buffers::can_use_input`]).
    progress: bool,
}

impl GrowingBuffers {
    /// Buffers for one connection; nothing is allocated until used.
    pub(crate) fn new(input_max: usize, output_size: usize) -> GrowingBuffers {
        GrowingBuffers {
            input: Vec::new(),
            filled: 0,
            consumed: 0,
            input_max: input_max.max(FIRST_INPUT),
            output: Vec::new(),
            output_size: output_size.max(1),
            progress: false,
        }
    }

    fn shift(&mut self) {
        if self.consumed == 0 {
            return;
        }
        self.input.copy_within(self.consumed..self.filled, 0);
        self.filled -= self.consumed;
        self.consumed = 0;
    }

    /// Makes room for a read: at least `wanted`, up to the maximum.
    fn make_room(&mut self, wanted: usize) {
        self.shift();
        let mut size = self.input.len().max(FIRST_INPUT.min(self.input_max));
        while size - self.filled < wanted && size < self.input_max {
            size = (size * 2).min(self.input_max);
        }
        self.grow_input(size);
    }

    /// Moves the input to a zeroed allocation of `size` bytes. Zeroed
    /// memory fresh from the system is not touched until written, so the
    /// pages a request never fills take no memory.
    fn grow_input(&mut self, size: usize) {
        if size <= self.input.len() {
            return;
        }
        let mut grown = vec![0; size];
        grown[..self.filled].copy_from_slice(&self.input[..self.filled]);
        self.input = grown;
    }

    /// Lets the output buffer go until the next request needs it: for a
    /// thread that will wait long for its answer.
    pub(crate) fn release_output(&mut self) {
        self.output = Vec::new();
    }

    /// Once a request was written (the output is held): lets go of the
    /// output and, when it holds nothing unread, the input, for a thread
    /// that will wait long for its answer without reading into these
    /// buffers (TLS reads into its own first). The reads of the answer's
    /// rest keep the input they take.
    pub(crate) fn release_idle(&mut self) {
        if self.output.is_empty() {
            return;
        }
        self.release_output();
        if self.filled == self.consumed {
            self.input = Vec::new();
            self.filled = 0;
            self.consumed = 0;
        }
    }

    fn ensure_output(&mut self) {
        if self.output.len() < self.output_size {
            // Zeroed as above: a request's head fills a page or two of it.
            self.output = vec![0; self.output_size];
        }
    }
}

impl Buffers for GrowingBuffers {
    fn output(&mut self) -> &mut [u8] {
        self.ensure_output();
        &mut self.output
    }

    fn input(&self) -> &[u8] {
        &self.input[self.consumed..self.filled]
    }

    fn input_append_buf(&mut self) -> &mut [u8] {
        self.make_room(MIN_FREE);
        &mut self.input[self.filled..]
    }

    fn input_appended(&mut self, amount: usize) {
        self.filled = (self.filled + amount).min(self.input.len());
    }

    fn input_consume(&mut self, amount: usize) {
        self.progress = amount > 0;
        self.consumed = (self.consumed + amount).min(self.filled);
        if self.consumed == self.filled {
            self.consumed = 0;
            self.filled = 0;
        }
    }

    fn tmp_and_output(&mut self) -> (&mut [u8], &mut [u8]) {
        // ureq reads a body of known length straight into the output; the
        // scratch space (the input's free part) only carries a chunked
        // body's pieces, any size of it will do.
        self.ensure_output();
        self.make_room(MIN_FREE);
        if self.input.len() - self.filled < MIN_FREE {
            // Only a full input at its maximum (never so between requests):
            // scratch space beyond the maximum, as the body's pieces need.
            self.grow_input(self.filled + MIN_FREE);
        }
        (&mut self.input[self.filled..], &mut self.output)
    }

    fn can_use_input(&self) -> bool {
        self.filled > self.consumed && self.progress
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_into(buffers: &mut GrowingBuffers, bytes: &[u8]) -> usize {
        let room = buffers.input_append_buf();
        let amount = room.len().min(bytes.len());
        room[..amount].copy_from_slice(&bytes[..amount]);
        buffers.input_appended(amount);
        amount
    }

    #[test]
    fn the_input_starts_small_and_grows_to_hold_a_large_head() {
        let mut buffers = GrowingBuffers::new(64 * 1024, 16 * 1024);
        let head = vec![b'h'; 20 * 1024];
        let mut read = 0;
        while read < head.len() {
            let before = buffers.input.len();
            read += read_into(&mut buffers, &head[read..]);
            assert!(buffers.input.len() <= 64 * 1024);
            assert!(before == 0 || buffers.input.len() >= before);
        }
        assert_eq!(buffers.input(), &head[..]);
        assert!(
            buffers.input.len() < 64 * 1024,
            "grew only as far as needed"
        );
    }

    #[test]
    fn a_small_answer_keeps_the_first_size_and_consumed_input_makes_room() {
        let mut buffers = GrowingBuffers::new(64 * 1024, 16 * 1024);
        for round in 0..100 {
            assert_eq!(read_into(&mut buffers, &[b'x'; 3000]), 3000);
            assert_eq!(buffers.input(), &[b'x'; 3000][..]);
            // ureq may parse again without a read only after a consume that
            // took something: not before the first, always after one.
            assert_eq!(buffers.can_use_input(), round > 0, "round {round}");
            buffers.input_consume(3000);
        }
        assert_eq!(buffers.input.len(), FIRST_INPUT);
        assert!(buffers.input().is_empty());
    }

    #[test]
    fn input_is_usable_again_only_after_a_consume_that_took_something() {
        let mut buffers = GrowingBuffers::new(64 * 1024, 16 * 1024);
        read_into(&mut buffers, b"HTTP/1.1 200");
        assert!(!buffers.can_use_input(), "nothing consumed yet");
        buffers.input_consume(5);
        assert!(
            buffers.can_use_input(),
            "a part consumed, the rest is there"
        );
        assert_eq!(buffers.input(), b"1.1 200");
        buffers.input_consume(0);
        assert!(
            !buffers.can_use_input(),
            "a consume of nothing needs a read"
        );
        buffers.input_consume(7);
        assert!(!buffers.can_use_input(), "all consumed: nothing to use");
        assert!(buffers.input().is_empty());
    }

    #[test]
    fn the_input_never_grows_past_its_maximum() {
        let mut buffers = GrowingBuffers::new(16 * 1024, 1024);
        let mut total = 0;
        while read_into(&mut buffers, &[b'y'; 4096]) > 0 {
            total += 4096;
            assert!(total < 64 * 1024, "a full buffer stops taking input");
        }
        assert_eq!(buffers.input.len(), 16 * 1024);
        assert_eq!(buffers.input().len(), 16 * 1024);
        let (tmp, output) = buffers.tmp_and_output();
        assert!(!tmp.is_empty());
        assert_eq!(output.len(), 1024);
    }

    #[test]
    fn a_body_of_known_length_grows_no_scratch_space_and_a_let_go_output_comes_back() {
        let mut buffers = GrowingBuffers::new(64 * 1024, 8 * 1024);
        assert_eq!(buffers.output().len(), 8 * 1024);
        let (tmp, output) = buffers.tmp_and_output();
        assert!(tmp.len() >= MIN_FREE && tmp.len() <= FIRST_INPUT);
        assert_eq!(output.len(), 8 * 1024);
        buffers.release_output();
        assert_eq!(buffers.output.capacity(), 0, "no output held while waiting");
        read_into(&mut buffers, b"HTTP/1.1 200 OK\r\n");
        assert_eq!(buffers.input.len(), FIRST_INPUT);
        assert_eq!(buffers.output().len(), 8 * 1024);
    }

    #[test]
    fn idle_buffers_let_go_of_an_empty_input_once_per_request_but_keep_one_unread() {
        let mut buffers = GrowingBuffers::new(64 * 1024, 8 * 1024);
        buffers.output();
        read_into(&mut buffers, b"HTTP/1.1 200");
        buffers.release_idle();
        assert_eq!(buffers.output.capacity(), 0);
        assert_eq!(buffers.input(), b"HTTP/1.1 200", "unread input is kept");
        buffers.input_consume(12);
        buffers.output();
        buffers.release_idle();
        assert_eq!(buffers.input.capacity(), 0, "no input held while waiting");
        assert_eq!(read_into(&mut buffers, b" OK\r\n"), 5);
        buffers.input_consume(5);
        buffers.release_idle();
        assert_eq!(
            buffers.input.len(),
            FIRST_INPUT,
            "the answer's next read keeps its input: no request since"
        );
    }
}
