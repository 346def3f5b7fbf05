/* m:export_c's entry (mbd_model_export_c): the options checked against the formulations' table —
 * the solver one whose solve export.c writes, its stabilization only where it reads one — the
 * model assembled, its spanning tree, and the program written by codegen/export.c (which is below
 * the formulations and knows none of them). */
#include "../codegen/codegen.h"
#include "../codegen/codegen_msg.h"
#include "mbd/formulation.h"

int mbd_model_export_c(mbd_model *m, const mbd_export_opts *o, mbd_error *err) {
  if (!o->dir || !*o->dir || !(o->t_end > 0) || !(o->rtol > 0) || !(o->atol > 0) ||
      !mbd_formulation_has(o->solver, MBD_FCAP_EXPORTED)) {
    return MBD_FAIL(err, MBD_E_INPUT, MSG_CODE_EXPORT_OPTS);
  }
  mbd_export_opts eo = *o;
  if (!mbd_formulation_has(o->solver, MBD_FCAP_STABILIZED)) {
    eo.alpha = eo.beta = 0;  // (augmented: the plain solve)
  }
  mbd_assembly_opts ao = {1e-10, 50};
  mbd_model *mr = NULL;
  // the tree simulate builds for this solver (slow joints first for the partitioned ones)
  int rc = mbd_tree_of_model(m, &ao, o->cut, o->ncut,
                             mbd_formulation_has(o->solver, MBD_FCAP_PARTITIONED), &mr, err);
  if (rc == MBD_OK) {
    rc = mbd_code_export(mr, &eo, err);
  }
  mbd_model_free(mr);
  return rc;
}
