// Package cache is an in-memory, size-bounded cache with expiry and
// per-key loaders, safe for concurrent use.
package cache

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// DefaultCapacity is the number of entries a cache holds when none is given.
const DefaultCapacity = 1024

// Eviction reasons, reported to an OnEvict callback.
const (
	// ReasonCapacity means the entry was the least recently used one.
	ReasonCapacity Reason = iota
	// ReasonExpired means the entry outlived its time to live.
	ReasonExpired
	ReasonDeleted
)

var (
	// ErrNotFound is returned by Get for a key that is absent or expired.
	ErrNotFound = errors.New("cache: not found")
	// ErrClosed is returned after Close.
	ErrClosed = errors.New("cache: closed")
)

var defaultClock Clock = systemClock{}

// Reason says why an entry left the cache.
type Reason int

// String names the reason, for logs.
func (r Reason) String() string {
	switch r {
	case ReasonCapacity:
		return "capacity"
	case ReasonExpired:
		return "expired"
	case ReasonDeleted:
		return "deleted"
	}
	return fmt.Sprintf("Reason(%d)", int(r))
}

// Clock tells the time; tests replace it with a fake.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

type (
	// Loader fetches the value of a missing key.
	Loader[K comparable, V any] func(ctx context.Context, key K) (V, error)

	// Stats counts what a cache has done since it was made.
	Stats struct {
		Hits, Misses, Evictions uint64
	}
)

// Options configure a cache. The zero value is usable.
type Options[K comparable, V any] struct {
	// Capacity bounds the number of entries; 0 means DefaultCapacity.
	Capacity int
	// TTL is how long an entry lives; 0 means forever.
	TTL time.Duration
	// OnEvict, if set, is called for each entry that leaves the cache.
	OnEvict func(key K, value V, reason Reason)
	Clock   Clock
}

// entry is one cached value and its place in the recency list.
type entry[K comparable, V any] struct {
	key     K
	value   V
	expires time.Time
}

// Cache is a size-bounded, least-recently-used cache.
type Cache[K comparable, V any] struct {
	mu      sync.Mutex
	opts    Options[K, V]
	items   map[K]*list.Element
	order   *list.List
	stats   Stats
	closed  bool
	loading map[K]*call[V]
}

// call is a load in flight, shared by every caller that asks for its key.
type call[V any] struct {
	done  chan struct{}
	value V
	err   error
}

// New makes a cache with the given options.
func New[K comparable, V any](opts Options[K, V]) *Cache[K, V] {
	if opts.Capacity <= 0 {
		opts.Capacity = DefaultCapacity
	}
	if opts.Clock == nil {
		opts.Clock = defaultClock
	}
	return &Cache[K, V]{
		opts:    opts,
		items:   make(map[K]*list.Element),
		order:   list.New(),
		loading: make(map[K]*call[V]),
	}
}

// Get returns the value of key, or ErrNotFound.
func (c *Cache[K, V]) Get(key K) (V, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var zero V
	if c.closed {
		return zero, ErrClosed
	}
	el, ok := c.items[key]
	if !ok {
		c.stats.Misses++
		return zero, ErrNotFound
	}
	e := el.Value.(*entry[K, V])
	if c.expired(e) {
		c.remove(el, ReasonExpired)
		c.stats.Misses++
		return zero, ErrNotFound
	}
	c.order.MoveToFront(el)
	c.stats.Hits++
	return e.value, nil
}

// Set stores value under key, evicting the least recently used entry if
// the cache is full.
func (c *Cache[K, V]) Set(key K, value V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	var expires time.Time
	if c.opts.TTL > 0 {
		expires = c.opts.Clock.Now().Add(c.opts.TTL)
	}
	if el, ok := c.items[key]; ok {
		e := el.Value.(*entry[K, V])
		e.value, e.expires = value, expires
		c.order.MoveToFront(el)
		return
	}
	c.items[key] = c.order.PushFront(&entry[K, V]{key: key, value: value, expires: expires})
	for c.order.Len() > c.opts.Capacity {
		c.remove(c.order.Back(), ReasonCapacity)
	}
}

// GetOrLoad returns the cached value of key, loading it with load when it
// is missing. Concurrent callers for one key share a single load.
func (c *Cache[K, V]) GetOrLoad(ctx context.Context, key K, load Loader[K, V]) (V, error) {
	if v, err := c.Get(key); err == nil {
		return v, nil
	}
	c.mu.Lock()
	if inflight, ok := c.loading[key]; ok {
		c.mu.Unlock()
		select {
		case <-inflight.done:
			return inflight.value, inflight.err
		case <-ctx.Done():
			var zero V
			return zero, ctx.Err()
		}
	}
	cl := &call[V]{done: make(chan struct{})}
	c.loading[key] = cl
	c.mu.Unlock()

	cl.value, cl.err = load(ctx, key)
	close(cl.done)
	if cl.err == nil {
		c.Set(key, cl.value)
	}
	c.mu.Lock()
	delete(c.loading, key)
	c.mu.Unlock()
	return cl.value, cl.err
}

// Delete removes key, if present.
func (c *Cache[K, V]) Delete(key K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.remove(el, ReasonDeleted)
	}
}

// Stats returns a copy of the counters.
func (c *Cache[K, V]) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// Close empties the cache; later calls fail with ErrClosed.
func (c *Cache[K, V]) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	c.items = nil
	c.order.Init()
	return nil
}

func (c *Cache[K, V]) expired(e *entry[K, V]) bool {
	return !e.expires.IsZero() && c.opts.Clock.Now().After(e.expires)
}

// remove unlinks el and reports it; the caller holds c.mu.
func (c *Cache[K, V]) remove(el *list.Element, reason Reason) {
	e := c.order.Remove(el).(*entry[K, V])
	delete(c.items, e.key)
	c.stats.Evictions++
	if c.opts.OnEvict != nil {
		c.opts.OnEvict(e.key, e.value, reason)
	}
}

// String summarizes the counters, e.g. "hits=3 misses=1 evictions=0".
func (s Stats) String() string {
	return fmt.Sprintf("hits=%d misses=%d evictions=%d", s.Hits, s.Misses, s.Evictions)
}

// HitRate is the share of lookups that hit, or 0 before any lookup.
func (s *Stats) HitRate() float64 {
	total := s.Hits + s.Misses
	if total == 0 {
		return 0
	}
	return float64(s.Hits) / float64(total)
}
