/* joint trees (paper 002): what the model layer knows of them — the coordinates each joint type
 * takes in a tree, the tree's lifetime, the names of its coordinates and a readable description.
 * Building the tree and the body poses from it are kinematics/tree.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree_impl.h"

int mbd_tree_joint_nq(int type, int dim) {
  const mbd_joint_type_desc *jt = mbd_joint_type_get(type);
  if (!jt || jt->nrow[dim == 3 ? 1 : 0] == 0) {
    return -1;
  }
  return jt->tree[dim == 3 ? 1 : 0].nq;
}

void mbd_tree_free(mbd_tree *t) {
  if (!t) {
    return;
  }
  free(t->tj);
  free(t->body_tj);
  free(t->joint_tj);
  free(t->cut);
  free(t->body_jadr);
  free(t->body_j);
  free(t);
}

/* the name of coordinate k (0-based) of tree joint tj */
static void tj_coord_name(const mbd_model *m, const mbd_tree_joint *tj, int k, char *buf,
                          size_t len) {
  if (tj->kind == MBD_TJ_FLOATING) {
    const mbd_body *b = &m->body[tj->child];
    snprintf(buf, len, "%s.%s", b->name, mbd_body_kind_get(b->kind)->coord[k]);
    return;
  }
  const mbd_joint *jo = &m->joint[tj->joint];
  const char *j = jo->name, *c = mbd_joint_type_get(jo->type)->tree[MBD_DIMX(m)].name[k];
  snprintf(buf, len, "%s.%s", j, c);
}

void mbd_tree_coord_name(const mbd_model *m, int i, char *buf, size_t len) {
  const mbd_tree *t = m->tree;
  for (int k = 0; t && k < t->ntj; k++) {
    const mbd_tree_joint *tj = &t->tj[k];
    if (i >= tj->qadr && i < tj->qadr + tj->nq) {
      tj_coord_name(m, tj, i - tj->qadr, buf, len);
      return;
    }
  }
  snprintf(buf, len, "coordinate %d", i);
}

/* ------------------------------------------------------------------------------------------ */
/* description                                                                                 */

typedef struct text {
  char *s;
  size_t n, cap;
  int bad;
} text;

static void put(text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put(text *t, const char *fmt, ...) {
  if (t->bad) {
    return;
  }
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
    va_end(ap);
    if (k < 0) {
      t->bad = 1;
      return;
    }
    if (t->s && t->n + (size_t)k < t->cap) {
      t->n += (size_t)k;
      return;
    }
    size_t cap = t->cap ? 2 * t->cap : 1024;
    while (cap <= t->n + (size_t)k) {
      cap *= 2;
    }
    char *p = realloc(t->s, cap);
    if (!p) {
      t->bad = 1;
      return;
    }
    t->s = p;
    t->cap = cap;
  }
}

char *mbd_tree_describe(const mbd_model *m) {
  const mbd_tree *t = m->tree;
  if (!t) {
    return NULL;
  }
  text x = {0};
  int *depth = calloc((size_t)m->nbody, sizeof(int));
  if (!depth) {
    return NULL;
  }
  put(&x, "spanning tree of model '%s' (relative joint coordinates)\n", m->name);
  put(&x, "  ground\n");
  // depth first from the ground, so each joint is printed under its parent: a stack of tree
  // joints still to print (children pushed in reverse, printed in their order)
  int *stack = calloc((size_t)t->ntj + 1, sizeof(int)), top = 0;
  if (!stack) {
    free(depth);
    return NULL;
  }
  for (int k = t->ntj - 1; k >= 0; k--) {
    if (t->tj[k].parent == 0) {
      stack[top++] = k;
    }
  }
  while (top > 0) {
    const mbd_tree_joint *tj = &t->tj[stack[--top]];
    for (int k = t->ntj - 1; k >= 0; k--) {
      if (t->tj[k].parent == tj->child) {
        stack[top++] = k;
      }
    }
    depth[tj->child] = depth[tj->parent] + 1;
    put(&x, "  %*s", 2 * depth[tj->child], "");
    if (tj->kind == MBD_TJ_FLOATING) {
      put(&x, "floating joint -> %s  [", m->body[tj->child].name);
    } else {
      const mbd_joint *j = &m->joint[tj->joint];
      put(&x, "%s '%s' -> %s  [", mbd_joint_type_name(j->type), j->name, m->body[tj->child].name);
    }
    for (int c = 0; c < tj->nq; c++) {
      char nm[160];
      tj_coord_name(m, tj, c, nm, sizeof nm);
      put(&x, "%s%s", c ? " " : "", nm);
    }
    put(&x, "]%s\n", tj->norm >= 0 ? " + norm" : "");
  }
  free(stack);
  put(&x, "  coordinates: %d\n", m->nv);
  if (t->ncut == 0) {
    put(&x, "  cut joints: none (an open tree)\n");
  } else {
    put(&x, "  cut joints:");
    for (int k = 0; k < t->ncut; k++) {
      const mbd_joint *j = &m->joint[t->cut[k]];
      put(&x, "%s %s '%s' (%d rows)", k ? "," : "", mbd_joint_type_name(j->type), j->name, j->nrow);
    }
    put(&x, "\n");
  }
  int nnorm = 0;
  for (int r = 0; r < m->mrow; r++) {
    nnorm += m->row[r].owner == MBD_ROW_TREE;
  }
  put(&x, "  constraints: %d (cut-joint rows %d, drives %d, Euler-parameter norms %d), rank %d\n",
      m->mrow, m->mrow - m->ndrive - nnorm, m->ndrive, nnorm, m->rank);
  put(&x, "  degrees of freedom: %d", m->nv - m->rank);
  free(depth);
  if (x.bad) {
    free(x.s);
    return NULL;
  }
  return x.s;
}
