/*
 * arena.c - a region allocator with nested scopes, and a string interner
 * built on it.
 *
 * Memory is taken from the system in blocks and handed out by bumping a
 * pointer; everything allocated in a scope is released when it closes.
 */

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

/** The size of a fresh block, unless an allocation needs more. */
#define ARENA_BLOCK_SIZE (64 * 1024)

/** Rounds `n` up to a multiple of `align`, a power of two. */
#define ALIGN_UP(n, align) (((n) + ((align) - 1)) & ~((size_t)(align) - 1))

#ifndef ARENA_MAX_DEPTH
/** How deeply scopes may nest. */
#define ARENA_MAX_DEPTH 32
#endif

/** Why an arena call failed. */
enum arena_error {
    ARENA_OK = 0,
    /** The system refused more memory. */
    ARENA_NO_MEMORY,
    /** Scopes nested deeper than ARENA_MAX_DEPTH. */
    ARENA_TOO_DEEP,
    ARENA_NOT_OPEN,
};

/** One block of memory obtained from the system. */
struct block {
    struct block *next; /**< The block allocated before this one. */
    size_t size;        /**< Usable bytes after the header. */
    size_t used;        /**< Bytes handed out so far. */
    alignas(max_align_t) unsigned char data[];
};

/** The allocator: a stack of blocks and a stack of open scopes. */
struct arena {
    struct block *head;
    /** Where each open scope began, so closing it can roll back. */
    struct mark {
        struct block *block;
        size_t used;
    } marks[ARENA_MAX_DEPTH];
    int depth;
    enum arena_error last_error;
};

/** A callback told about every new block, for statistics. */
typedef void (*arena_hook)(size_t block_size, void *context);

/** Counters kept by the default hook. */
typedef struct {
    size_t blocks;
    size_t bytes;
} arena_stats;

/** Statistics of every arena in the process. */
static arena_stats global_stats;

static arena_hook current_hook = NULL;
static void *hook_context;

/** Printable names of the errors, by value. */
static const char *const error_names[] = {
    "ok",
    "no memory",
    "too deep",
    "not open",
};

/* Takes a block of at least `min_size` usable bytes from the system. */
static struct block *block_new(size_t min_size) {
    size_t size = min_size > ARENA_BLOCK_SIZE ? min_size : ARENA_BLOCK_SIZE;
    struct block *b = malloc(sizeof *b + size);
    if (b == NULL) {
        return NULL;
    }
    b->next = NULL;
    b->size = size;
    b->used = 0;
    global_stats.blocks++;
    global_stats.bytes += size;
    if (current_hook != NULL) {
        current_hook(size, hook_context);
    }
    return b;
}

/** Makes an empty arena; returns NULL when out of memory. */
struct arena *arena_new(void) {
    struct arena *a = calloc(1, sizeof *a);
    if (a == NULL) {
        return NULL;
    }
    a->last_error = ARENA_OK;
    return a;
}

/** Frees an arena and everything allocated in it. */
void arena_free(struct arena *a) {
    if (a == NULL) {
        return;
    }
    struct block *b = a->head;
    while (b != NULL) {
        struct block *next = b->next;
        free(b);
        b = next;
    }
    free(a);
}

/**
 * Allocates `size` bytes aligned to `align` (a power of two, at most
 * alignof(max_align_t)). Returns NULL and records the error on failure.
 */
void *arena_alloc_aligned(struct arena *a, size_t size, size_t align) {
    struct block *b = a->head;
    if (b != NULL) {
        size_t at = ALIGN_UP(b->used, align);
        if (at + size <= b->size) {
            b->used = at + size;
            return b->data + at;
        }
    }
    b = block_new(size);
    if (b == NULL) {
        a->last_error = ARENA_NO_MEMORY;
        return NULL;
    }
    b->next = a->head;
    a->head = b;
    b->used = size;
    return b->data;
}

/** Allocates `size` bytes with the strictest alignment. */
void *arena_alloc(struct arena *a, size_t size) {
    return arena_alloc_aligned(a, size, alignof(max_align_t));
}

/** Opens a scope: allocations after this are freed by arena_close. */
int arena_open(struct arena *a) {
    if (a->depth == ARENA_MAX_DEPTH) {
        a->last_error = ARENA_TOO_DEEP;
        return -1;
    }
    a->marks[a->depth].block = a->head;
    a->marks[a->depth].used = a->head ? a->head->used : 0;
    a->depth++;
    return 0;
}

/** Closes the innermost scope, releasing what was allocated in it. */
int arena_close(struct arena *a) {
    if (a->depth == 0) {
        a->last_error = ARENA_NOT_OPEN;
        return -1;
    }
    struct mark m = a->marks[--a->depth];
    while (a->head != m.block) {
        struct block *next = a->head->next;
        free(a->head);
        a->head = next;
    }
    if (a->head != NULL) {
        a->head->used = m.used;
    }
    return 0;
}

/** The name of the arena's last error. */
const char *arena_strerror(const struct arena *a) {
    return error_names[a->last_error];
}

/** Installs a hook called for every new block; NULL removes it. */
void arena_set_hook(arena_hook hook, void *context) {
    current_hook = hook;
    hook_context = context;
}

/** A set of unique strings, each stored once in an arena. */
struct interner {
    struct arena *arena;
    const char **slots;
    size_t capacity;
    size_t count;
};

/* FNV-1a, good enough for short identifiers. */
static inline uint32_t hash_bytes(const char *s, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    }
    return h;
}

/**
 * Returns the interned copy of `s`, adding it if new. Equal strings give
 * equal pointers, so they can be compared with `==`.
 */
const char *intern(struct interner *in, const char *s) {
    size_t n = strlen(s);
    size_t i = hash_bytes(s, n) & (in->capacity - 1);
    while (in->slots[i] != NULL) {
        if (strcmp(in->slots[i], s) == 0) {
            return in->slots[i];
        }
        i = (i + 1) & (in->capacity - 1);
    }
    char *copy = arena_alloc_aligned(in->arena, n + 1, 1);
    if (copy == NULL) {
        return NULL;
    }
    memcpy(copy, s, n + 1);
    in->slots[i] = copy;
    in->count++;
    return copy;
}
