#include <stdlib.h>
#include "ring.h"

#define RING_MAX 1024
#define RING_NEXT(i, n) (((i) + 1) % (n))

/* A ring buffer of ints. */
struct ring {
    int *data;
    size_t head;
    size_t len;
};

typedef struct ring ring_t;

enum ring_status {
    RING_OK,
    RING_FULL,
};

static int ring_count = 0;

/* Creates a ring of `n` slots. */
ring_t *ring_new(size_t n)
{
    ring_t *r = malloc(sizeof *r);
    r->data = calloc(n, sizeof(int));
    r->head = 0;
    r->len = n;
    ring_count++;
    return r;
}

/* Pushes one value. */
enum ring_status ring_push(ring_t *r, int v)
{
    r->data[r->head] = v;
    r->head = RING_NEXT(r->head, r->len);
    return RING_OK;
}

void ring_free(ring_t *r)
{
    free(r->data);
    free(r);
}
