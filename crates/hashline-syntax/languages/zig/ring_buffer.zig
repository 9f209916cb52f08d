//! A fixed-capacity ring buffer and a byte-stream reader built on it.
//!
//! The buffer never allocates after `init`; writers that outrun readers either block
//! (with `Policy.reject`) or overwrite the oldest items (with `Policy.overwrite`).

const std = @import("std");
const mem = std.mem;
const testing = std.testing;
const Allocator = std.mem.Allocator;

/// The capacity a buffer gets when the caller passes 0.
pub const default_capacity: usize = 64;

/// What a full buffer does with a new item.
pub const Policy = enum {
    /// Refuse the item: `push` returns `error.Full`.
    reject,
    /// Drop the oldest item to make room.
    overwrite,

    /// The policy's name, for logs.
    pub fn name(self: Policy) []const u8 {
        return switch (self) {
            .reject => "reject",
            .overwrite => "overwrite",
        };
    }
};

/// The errors of the buffer's operations.
pub const Error = error{
    Full,
    Empty,
} || Allocator.Error;

/// What `drain` hands to its sink: a slice, or the end of the stream.
pub const Chunk = union(enum) {
    data: []const u8,
    end,
};

/// A ring buffer of `T` with a capacity fixed at `init`.
pub fn RingBuffer(comptime T: type) type {
    return struct {
        const Self = @This();

        items: []T,
        head: usize = 0,
        len: usize = 0,
        policy: Policy,
        allocator: Allocator,

        /// A buffer of `capacity` items (`default_capacity` when 0).
        pub fn init(allocator: Allocator, capacity: usize, policy: Policy) Error!Self {
            const n = if (capacity == 0) default_capacity else capacity;
            return .{
                .items = try allocator.alloc(T, n),
                .policy = policy,
                .allocator = allocator,
            };
        }

        pub fn deinit(self: *Self) void {
            self.allocator.free(self.items);
            self.* = undefined;
        }

        pub fn capacity(self: Self) usize {
            return self.items.len;
        }

        pub fn isFull(self: Self) bool {
            return self.len == self.items.len;
        }

        /// Adds `item` at the back, as the policy says when the buffer is full.
        pub fn push(self: *Self, item: T) Error!void {
            if (self.isFull()) {
                switch (self.policy) {
                    .reject => return error.Full,
                    .overwrite => {
                        self.head = (self.head + 1) % self.items.len;
                        self.len -= 1;
                    },
                }
            }
            const tail = (self.head + self.len) % self.items.len;
            self.items[tail] = item;
            self.len += 1;
        }

        /// Takes the item at the front.
        pub fn pop(self: *Self) Error!T {
            if (self.len == 0) return error.Empty;
            const item = self.items[self.head];
            self.head = (self.head + 1) % self.items.len;
            self.len -= 1;
            return item;
        }

        /// The item `index` places from the front, if there is one.
        pub fn peek(self: Self, index: usize) ?T {
            if (index >= self.len) return null;
            return self.items[(self.head + index) % self.items.len];
        }

        /// Copies up to `out.len` items to `out`; returns how many.
        pub fn read(self: *Self, out: []T) usize {
            var n: usize = 0;
            while (n < out.len) : (n += 1) {
                out[n] = self.pop() catch break;
            }
            return n;
        }
    };
}

/// A byte buffer that feeds a sink in chunks.
pub const ByteStream = struct {
    ring: RingBuffer(u8),
    chunk_size: usize,

    pub fn init(allocator: Allocator, capacity: usize) Error!ByteStream {
        return .{
            .ring = try RingBuffer(u8).init(allocator, capacity, .reject),
            .chunk_size = 16,
        };
    }

    pub fn deinit(self: *ByteStream) void {
        self.ring.deinit();
    }

    /// Writes as many of `bytes` as fit; returns how many did.
    pub fn write(self: *ByteStream, bytes: []const u8) usize {
        for (bytes, 0..) |b, i| {
            self.ring.push(b) catch return i;
        }
        return bytes.len;
    }

    /// Hands everything buffered to `sink` in chunks, then `.end`.
    pub fn drain(self: *ByteStream, context: anytype, comptime sink: fn (@TypeOf(context), Chunk) void) void {
        var scratch: [64]u8 = undefined;
        while (true) {
            const n = self.ring.read(scratch[0..@min(self.chunk_size, scratch.len)]);
            if (n == 0) break;
            sink(context, .{ .data = scratch[0..n] });
        }
        sink(context, .end);
    }
};

/// Sums a slice of integers, for the tests below.
inline fn sum(values: []const u32) u64 {
    var total: u64 = 0;
    for (values) |v| total += v;
    return total;
}

export fn ring_default_capacity() usize {
    return default_capacity;
}

test "push and pop keep order" {
    var ring = try RingBuffer(u32).init(testing.allocator, 4, .reject);
    defer ring.deinit();
    try ring.push(1);
    try ring.push(2);
    try testing.expectEqual(@as(u32, 1), try ring.pop());
    try testing.expectEqual(@as(u32, 2), try ring.pop());
    try testing.expectError(error.Empty, ring.pop());
}

test "a full buffer overwrites the oldest item" {
    var ring = try RingBuffer(u32).init(testing.allocator, 2, .overwrite);
    defer ring.deinit();
    try ring.push(1);
    try ring.push(2);
    try ring.push(3);
    try testing.expectEqual(@as(?u32, 2), ring.peek(0));
    try testing.expectEqual(@as(u64, 5), sum(&.{ 2, 3 }));
}
