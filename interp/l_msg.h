/* mbd — message templates of the Lua binding (interp/): the errors a script's call raises at the
 * user's line, in the form of the engine's templates (model_msg.h and the other _msg.h headers of
 * the engine's libraries): one place for the text the user sees, a comment naming the arguments of
 * each.  Each template is a string literal, so the compiler checks the arguments of every
 * luaL_error; the tests match the text, which is a stable contract of the DSL. */
#ifndef MBD_L_MSG_H
#define MBD_L_MSG_H

/* ---- m:animate and lin:animate's shapes (l_animate.c) ---------------------------------------- */

/* arguments: what, the value's type */
#define LMSG_ANIMATE_BODY_BODY_S_NAME "animate: %s expects a body or a body's name, got %s"
/* arguments: what, name, model name */
#define LMSG_ANIMATE_BODY_MODEL "animate: %s: no body '%s' in model '%s'"
/* arguments: the value's type */
#define LMSG_ANIMATE_FIELD_SHAPES_TABLE_BODY \
  "animate: field 'shapes' expects a table {body = {box = {..}} ...}, got %s"
/* arguments: what */
#define LMSG_ANIMATE_BOX_LX_LY_LZ "%s: give box = {lx, ly, lz}, sphere = r or cylinder = {r, h}"
/* arguments: what */
#define LMSG_ANIMATE_SIZES_POSITIVE "%s: sizes must be positive"
/* arguments: MAX_TRACES */
#define LMSG_ANIMATE_MOST_TRACES "animate: at most %d traces"
/* no arguments */
#define LMSG_ANIMATE_MISSING_FIELD_FILE_HTML \
  "animate: missing field 'file' (the .html page to write)"
/* arguments: a.every */
#define LMSG_ANIMATE_FIELD_EVERY_LEAST "animate: field 'every' must be at least 1, got %d"
/* no arguments */
#define LMSG_ANIMATE_RUN_SAMPLES "animate: the run has no samples"
/* no arguments */
#define LMSG_ANIMATE_RUNS_MBD_MODEL_ANIMATED \
  "animate: only runs of an mbd.model can be animated (this run has no bodies to draw)"
/* no arguments */
#define LMSG_ANIMATE_EMBEDDED_PAGE_DATA_MARKER \
  "animate: the embedded page has no data marker (a build error)"
/* arguments: the engine's message */
#define LMSG_ANIMATE_ENGINE "animate: %s"

/* ---- drives and Lua callbacks (l_callback.c) ------------------------------------------------- */

/* no arguments */
#define LMSG_CALLBACK_OUT_MEMORY "out of memory"
/* no arguments */
#define LMSG_CALLBACK_DRIVE_SYMBOLIC_POSITION_GIVES                                               \
  "drive: a symbolic position gives its own velocity and acceleration; remove fields 'velocity' " \
  "and 'acceleration'"
/* arguments: err.code ? the engine's message : "cannot differentiate it" */
#define LMSG_CALLBACK_DRIVE_FIELD_POSITION_DRIVE \
  "drive: field 'position': %s (a drive's expression may use only mbd.sym.t)"
/* no arguments */
#define LMSG_CALLBACK_DRIVE_MISSING_FIELD_POSITION "drive: missing field 'position'"
/* arguments: the value's type */
#define LMSG_CALLBACK_DRIVE_FIELD_POSITION_FUNCTION                                           \
  "drive: field 'position' expects a function of t, a symbolic expression of mbd.sym.t or a " \
  "number, got %s"
/* no arguments */
#define LMSG_CALLBACK_DRIVE_FIELD_ACCELERATION_NEEDS \
  "drive: field 'acceleration' needs field 'velocity' too"

/* ---- surfaces and contacts (l_contact.c) ----------------------------------------------------- */

/* arguments: what, key, the value's type */
#define LMSG_CONTACT_FIELD_SYMBOLIC_EXPRESSION_MBD \
  "%s: field '%s' expects a symbolic expression (mbd.sym), got %s"
/* arguments: what, key, the value's type */
#define LMSG_CONTACT_FIELD_SYMBOLIC_VARIABLE_MBD \
  "%s: field '%s' expects a symbolic variable (mbd.sym.var), got %s"
/* arguments: what */
#define LMSG_CONTACT_EXPRESSIONS_SEVERAL_VARIABLES_NAME \
  "%s: the expressions use several variables: name the parameter with 'param'"
/* arguments: what */
#define LMSG_CONTACT_FIELD_RANGE_NUMBERS_LO "%s: field 'range' expects 2 numbers {lo, hi}"
/* arguments: what */
#define LMSG_CONTACT_FIELD_RANGE_U_LO_U_HI "%s: field 'range' expects {{u_lo, u_hi}, {v_lo, v_hi}}"
/* no arguments */
#define LMSG_CONTACT_SURFACE_MISSING_FIELD_SHAPE "surface: missing field 'shape'"
/* arguments: shape */
#define LMSG_CONTACT_SURFACE_UNKNOWN_SHAPE_PLANAR                                            \
  "surface: unknown shape '%s' (planar: line, circle, sine, curve; spatial: plane, sphere, " \
  "revolution, implicit, parametric)"
/* arguments: what, shape, dim == 2 ? "spatial" : "planar", dim == 2 ? "planar" : "spatial", dim */
#define LMSG_CONTACT_SHAPE_MODEL_DIM "%s: shape '%s' is %s, the model is %s (dim = %d)"
/* arguments: fields[k], shape, what */
#define LMSG_CONTACT_SURFACE_FIELD_USED_SHAPE "surface: field '%s' is not used by shape '%s' (%s)"
/* arguments: the value's type */
#define LMSG_CONTACT_SURFACE_FIELD_INNER_BOOLEAN "surface: field 'inner' expects a boolean, got %s"
/* arguments: what */
#define LMSG_CONTACT_SURFACE_MISSING_FIELD_DIRECTION "surface: missing field 'direction' (%s)"
/* arguments: what */
#define LMSG_CONTACT_SURFACE_MISSING_FIELD_NORMAL "surface: missing field 'normal' (%s)"
/* arguments: xyz[k], what */
#define LMSG_CONTACT_SURFACE_MISSING_FIELD "surface: missing field '%s' (%s)"
/* no arguments */
#define LMSG_CONTACT_SURFACE_FIELD_PARAMS_NAME \
  "surface: field 'params' must name two different variables"
/* arguments: what */
#define LMSG_CONTACT_SURFACE_MISSING_FIELD_F "surface: missing field 'f' (%s)"
/* arguments: what */
#define LMSG_CONTACT_SURFACE_MISSING_FIELD_PROFILE "surface: missing field 'profile' (%s)"
/* arguments: key */
#define LMSG_CONTACT_MISSING_FIELD "contact: missing field '%s'"
/* arguments: key, SURFACE_MT, the value's type */
#define LMSG_CONTACT_FIELD "contact: field '%s' expects an %s, got %s"
/* arguments: key */
#define LMSG_CONTACT_FIELD_SURFACE_ANOTHER_MODEL "contact: field '%s' is a surface of another model"
/* arguments: fr */
#define LMSG_CONTACT_UNKNOWN_FRICTION_COULOMB_REGULARIZED \
  "contact: unknown friction '%s' (coulomb, regularized, none)"
/* arguments: fr ? fr : "coulomb" */
#define LMSG_CONTACT_FRICTION_NEEDS_FIELD_MU "contact: friction '%s' needs field 'mu'"
/* no arguments */
#define LMSG_CONTACT_FIELD_MU_STATIC_FRICTION_COULOMB \
  "contact: field 'mu_static' is for friction 'coulomb'"
/* no arguments */
#define LMSG_CONTACT_FRICTION_REGULARIZED_NEEDS_FIELD \
  "contact: friction 'regularized' needs field 'slope' (N·s/m)"
/* no arguments */
#define LMSG_CONTACT_FIELD_SLOPE_FRICTION_REGULARIZED \
  "contact: field 'slope' is for friction 'regularized'"
/* arguments: what, the value's type */
#define LMSG_CONTACT_FIELD_FRICTION_TABLE_MU \
  "%s: field 'friction' expects a table {mu = ..., radius = ...}, got %s"
/* arguments: what */
#define LMSG_CONTACT_FRICTION_FIELD_RADIUS_REVOLUTE \
  "%s: friction field 'radius' is for revolute joints"

/* ---- explain (l_explain.c) ------------------------------------------------------------------- */

/* no arguments */
#define LMSG_EXPLAIN_FIELD_LINEARIZE_MODELS_M "explain: field 'linearize' is for models (m:explain)"
/* arguments: owner */
#define LMSG_EXPLAIN_FIELD_RUN_RUN_ANOTHER "explain: field 'run' is a run of another %s"
/* no arguments */
#define LMSG_EXPLAIN_MISSING_FIELD_T_TIME \
  "explain: missing field 't' (the time of the run to explain)"
/* arguments: strcmp(owner, "model") == 0 ? "assembled" : "given" */
#define LMSG_EXPLAIN_FIELD_T_NEEDS_FIELD \
  "explain: field 't' needs field 'run' (without a run: the %s initial state, t = 0)"
/* arguments: the value's type */
#define LMSG_EXPLAIN_FIELD_LINEARIZE_TRUE_FALSE \
  "explain: field 'linearize' expects true or false, got %s"

/* ---- finite elements and flexible bodies (l_fem.c) ------------------------------------------- */

/* arguments: ctor */
#define LMSG_FEM_MISSING_FIELD_ELEMENTS "%s: missing field 'elements'"
/* arguments: ctor, the value's type */
#define LMSG_FEM_FIELD_ROTARY_BOOLEAN "%s: field 'rotary' expects a boolean, got %s"
/* arguments: ctor, key */
#define LMSG_FEM_MISSING_FIELD "%s: missing field '%s'"
/* no arguments */
#define LMSG_FEM_ADD_MASS_MISSING_FIELD_NODE "add_mass: missing field 'node'"
/* arguments: the value's type */
#define LMSG_FEM_MODES_FIELD_FIXED_LIST \
  "modes: field 'fixed' expects a list of node numbers, got %s"
/* arguments: k + 1, the value's type */
#define LMSG_FEM_MODES_FIELD_FIXED_NODE "modes: field 'fixed' expects node numbers, entry %d is %s"
/* arguments: (int)i, lm->mo->nmode */
#define LMSG_FEM_MODES_SHAPE_MODE_ONE "modes:shape: mode %d is not one of the modes (1 .. %d)"
/* arguments: (int)k, mo->nnode */
#define LMSG_FEM_MODES_NODE_NODE_ONE "modes:node: node %d is not one of the nodes (1 .. %d)"
/* arguments: what, key, scalar_ok ? "a number or " : "", n, got < 0 ? "" : ", got another count" */
#define LMSG_FEM_FIELD_NUMBERS_ONE_PER \
  "%s: field '%s' expects %s%d numbers (one per selected mode)%s"
/* arguments: ctor */
#define LMSG_FEM_MISSING_FIELD_MODES_FE \
  "%s: missing field 'modes' (fe:modes{...} or mbd.fem.load(file))"
/* arguments: ctor, MODES_MT, the value's type */
#define LMSG_FEM_FIELD_MODES "%s: field 'modes' expects an %s, got %s"
/* arguments: ctor, FE_MT, the value's type */
#define LMSG_FEM_FIELD_FE "%s: field 'fe' expects an %s, got %s"
/* arguments: ctor */
#define LMSG_FEM_FIELD_MODES_HOLDS_MODES                                                         \
  "%s: field 'modes' holds the modes of another FE model than 'fe' (or modes read from a file, " \
  "which carry their own nodes: leave 'fe' out)"
/* arguments: ctor, the value's type */
#define LMSG_FEM_FIELD_SELECT_LIST_MODE "%s: field 'select' expects a list of mode numbers, got %s"
/* arguments: ctor, n, mo->nmode */
#define LMSG_FEM_FIELD_SELECT_LISTS_MODES "%s: field 'select' lists %d modes, there are %d"
/* arguments: ctor */
#define LMSG_FEM_FIELD_SELECT_EMPTY_LIST                                                     \
  "%s: field 'select' is empty: list the modes the body may deform in (such as {1, 2}), or " \
  "leave select out for every elastic mode (a body that does not deform is m:body)"
/* arguments: ctor, k + 1, the value's type */
#define LMSG_FEM_FIELD_SELECT_MODE_NUMBERS "%s: field 'select' expects mode numbers, entry %d is %s"
/* arguments: ctor, the value's type */
#define LMSG_FEM_FIELD_ROTARY_INERTIA_BOOLEAN "%s: field 'rotary_inertia' expects a boolean, got %s"
/* arguments: ctor, the value's type */
#define LMSG_FEM_FIELD_GEOMETRIC_STIFFENING_BOOLEAN \
  "%s: field 'geometric_stiffening' expects a boolean, got %s"
/* arguments: mbd_model_body_name(m, o->index) */
#define LMSG_FEM_NODE_BODY_FLEXIBLE_BODY "node: body '%s' is not a flexible body"
/* arguments: mbd_model_body_name(m, o->index), n, (int)k */
#define LMSG_FEM_NODE_FLEXIBLE_BODY_NODES "node: flexible body '%s' has nodes 1 .. %d, not %d"

/* ---- equilibrium, linearization, inputs and outputs (l_linear.c) ----------------------------- */

/* arguments: what, lua_tostring(L, idx), model name */
#define LMSG_LINEAR_JOINT_MODEL "%s: no joint '%s' in model '%s'"
/* arguments: what, the value's type */
#define LMSG_LINEAR_MBD_JOINT_JOINT_S "%s: expects an mbd.Joint or a joint's name, got %s"
/* arguments: what */
#define LMSG_LINEAR_JOINT_JOINT_ANOTHER_MODEL "%s: the joint is a joint of another model"
/* arguments: what, lua_tostring(L, idx), model name */
#define LMSG_LINEAR_BODY_MODEL "%s: no body '%s' in model '%s'"
/* arguments: what, the value's type */
#define LMSG_LINEAR_MBD_BODY_BODY_S "%s: expects an mbd.Body or a body's name, got %s"
/* arguments: what */
#define LMSG_LINEAR_BODY_BODY_ANOTHER_MODEL "%s: the body is a body of another model"
/* arguments: what */
#define LMSG_LINEAR_GROUND_DOES_MOVE "%s: the ground does not move"
/* arguments: fn, key, the value's type */
#define LMSG_LINEAR_FIELD_LIST_NAMES "%s: field '%s' expects a list of names, got %s"
/* arguments: fn, key, i, the value's type */
#define LMSG_LINEAR_FIELD_ENTRY_NAME "%s: field '%s': entry %d is %s, not a name"
/* arguments: fn, name, mbd_formulation_names(all, sizeof all, 0) */
#define LMSG_LINEAR_UNKNOWN_FORMULATION "%s: unknown formulation '%s' (%s)"
/* arguments: o.tol as text */
#define LMSG_LINEAR_EQUILIBRIUM_FIELD_TOL_POSITIVE \
  "equilibrium: field 'tol' must be positive and finite, got %s"
/* arguments: o.max_iter */
#define LMSG_LINEAR_EQUILIBRIUM_FIELD_MAX_ITERATIONS_LEAST \
  "equilibrium: field 'max_iterations' must be at least 1, got %d"
/* arguments: the value's type */
#define LMSG_LINEAR_EQUILIBRIUM_FIELD_FIXED_LIST \
  "equilibrium: field 'fixed' expects a list of joints, got %s"
/* no arguments */
#define LMSG_LINEAR_EQUILIBRIUM_FIELD_CUT_FORMULATION \
  "equilibrium: field 'cut' is for formulation 'relative'"
/* arguments: the engine's message */
#define LMSG_LINEAR_LAST_ITERATE_KEPT_MODEL "%s (the last iterate is kept in model.last_run)"
/* arguments: what, expects, the value's type */
#define LMSG_LINEAR_TABLE "%s: expects a table (%s), got %s"
/* arguments: what */
#define LMSG_LINEAR_ONE_TORQUE_BODY_FORCE "%s: give one of torque = body, force = body or joint = J"
/* arguments: what, c */
#define LMSG_LINEAR_FIELD_COORDINATE_ANGLE_DISPLACEMENT \
  "%s: field 'coordinate' is \"angle\" or \"displacement\", got '%s'"
/* arguments: what */
#define LMSG_LINEAR_FORCE_NEEDS_FIELD_DIRECTION "%s: a force needs field 'direction' (global)"
/* arguments: what */
#define LMSG_LINEAR_SPATIAL_TORQUE_NEEDS_FIELD \
  "%s: a spatial torque needs field 'direction' (its axis, global)"
/* arguments: what */
#define LMSG_LINEAR_PLANAR_TORQUE_ACTS_ABOUT \
  "%s: a planar torque acts about z (no field 'direction')"
/* arguments: what */
#define LMSG_LINEAR_TORQUE_POINT_FIELD "%s: a torque has no point (no field 'at')"
/* arguments: what */
#define LMSG_LINEAR_BODY_SPINS_ABOUT_OWN \
  "%s: a body spins about its own centre of mass (no field 'at')"
/* arguments: what, s->body > 0 ? "the body's symmetry axis, in its frame" : "global" */
#define LMSG_LINEAR_MISSING_FIELD_AXIS "%s: missing field 'axis' (%s)"
/* arguments: what */
#define LMSG_LINEAR_PLANAR_ROTATION_ABOUT_Z "%s: a planar rotation is about z (no field 'axis')"
/* arguments: method */
#define LMSG_LINEAR_LINEARIZE_UNKNOWN_METHOD_DIFFERENCES \
  "linearize: unknown method '%s' (differences, analytic)"
/* arguments: model name */
#define LMSG_LINEAR_LINEARIZE_MODEL_RUNNING_ASSEMBLED \
  "linearize: model '%s' is running and not assembled"
/* arguments: the value's type */
#define LMSG_LINEAR_LINEARIZE_FIELD_MBD_RUN \
  "linearize: field 'at' expects an mbd.Run (a run or an equilibrium of this model), got %s"
/* no arguments */
#define LMSG_LINEAR_LINEARIZE_FIELD_RUN_ANOTHER "linearize: field 'at' is a run of another model"
/* no arguments */
#define LMSG_LINEAR_LINEARIZE_MISSING_FIELD_T                                                   \
  "linearize: missing field 't' (the time of the run to linearize about; a run of one sample, " \
  "an equilibrium, needs none)"
/* arguments: t, ns ? ts[0] : 0.0, ns ? ts[ns - 1] : 0.0 */
#define LMSG_LINEAR_LINEARIZE_T_OUTSIDE_RUN "linearize: t = %f is outside the run (%f .. %f s)"
/* no arguments */
#define LMSG_LINEAR_LINEARIZE_FIELD_T_NEEDS \
  "linearize: field 't' needs field 'at' (without a run: the assembled initial state, t = 0)"
/* arguments: the value's type */
#define LMSG_LINEAR_LINEARIZE_FIELD_INPUTS_LIST \
  "linearize: field 'inputs' expects a list of inputs, got %s"
/* arguments: the value's type */
#define LMSG_LINEAR_LINEARIZE_FIELD_STEADY_LIST \
  "linearize: field 'steady' expects a list of symmetries, got %s"
/* no arguments */
#define LMSG_LINEAR_LINEARIZE_FIELD_CUT_FORMULATION \
  "linearize: field 'cut' is for formulation 'relative'"
/* no arguments */
#define LMSG_LINEAR_MBD_LINEAR_LINEARIZATION_FAILED \
  "mbd.Linear: the linearization failed (no result)"
/* arguments: fmt */
#define LMSG_LINEAR_LIN_WRITE_FORMAT_MTX \
  "lin:write: format is \"mtx\" (Matrix Market) or \"csv\", got '%s'"
/* arguments: k, ll->l->nmode */
#define LMSG_LINEAR_LIN_ANIMATE_MODE_DOES "lin:animate: mode %d does not exist (%d modes)"
/* no arguments */
#define LMSG_LINEAR_LIN_ANIMATE_CYCLES_STEPS \
  "lin:animate: cycles must be in (0, 1000] and steps in [2, 10000]"
/* no arguments */
#define LMSG_LINEAR_LIN_ANIMATE_FIELD_AMPLITUDE \
  "lin:animate: field 'amplitude' must be positive and finite"

/* ---- the model and its objects (l_model.c, l_model_core.c) ----------------------------------- */

/* arguments: what, key, dim == 3 ? "{0, 0, 0}" : "{0, 0}" */
#define LMSG_MODEL_MISSING_FIELD_POINT_BODY \
  "%s: missing field '%s' (a point in the body's frame; %s for its centre of mass)"
/* arguments: dim */
#define LMSG_MODEL_FIELD_DIM "model: field 'dim' must be 2 or 3, got %d"
/* no arguments */
#define LMSG_MODEL_BODY_MISSING_FIELD_INERTIA "body: missing field 'inertia'"
/* arguments: what */
#define LMSG_MODEL_FIELD_INERTIA_NUMBERS_IXX                                                      \
  "%s: field 'inertia' expects 3 numbers {Ixx, Iyy, Izz} or 6 {Ixx, Iyy, Izz, Ixy, Iyz, Izx} in " \
  "a spatial model"
/* arguments: ctor */
#define LMSG_MODEL_FIELD_AXIS2_USED_PLANAR "%s: field 'axis2' is not used in planar models"
/* arguments: ctor */
#define LMSG_MODEL_FIELD_BODY_GROUND_WHICH "%s: field 'body' is the ground, which takes no force"
/* arguments: obj */
#define LMSG_MODEL_FIELD_VALUE_NUMBERS_TX \
  "%s: field 'value' expects 3 numbers {tx, ty, tz} (global) in a spatial model, got a number"
/* arguments: ctor */
#define LMSG_MODEL_MISSING_FIELD_VALUE "%s: missing field 'value'"

/* ---- bodies, joints and the force state (l_objects.c) ---------------------------------------- */

/* arguments: ctor, key, mt, the value's type */
#define LMSG_OBJECTS_FIELD "%s: field '%s' expects an %s, got %s"
/* arguments: ctor, key, noun */
#define LMSG_OBJECTS_FIELD_ANOTHER_MODEL "%s: field '%s' is a %s of another model"
/* no arguments */
#define LMSG_OBJECTS_STATE_GET_STATE_VALID \
  "state:get: the state is only valid inside a force function"
/* arguments: name */
#define LMSG_OBJECTS_STATE_GET_CHANNEL "state:get: no channel '%s'"
/* arguments: name */
#define LMSG_OBJECTS_STATE_GET_CHANNEL_NEEDS                                                    \
  "state:get: channel '%s' needs accelerations or reactions, which are not known while forces " \
  "are computed"

/* ---- parallel_map (l_parallel.c) ------------------------------------------------------------- */

/* no arguments */
#define LMSG_PARALLEL_PARALLEL_MAP_EXCHANGE_RESULTS_AMONG \
  "parallel_map: the exchange of results among the MPI ranks failed"
/* arguments: dist->rank, dist->size */
#define LMSG_PARALLEL_PARALLEL_MAP_INTERRUPTED_MPI_RANK \
  "parallel_map: interrupted (MPI rank %d of %d)"
/* arguments: i, (int)n */
#define LMSG_PARALLEL_PARALLEL_MAP_INTERRUPTED_AFTER_POINTS \
  "parallel_map: interrupted after %d of %d points"
/* arguments: strerror(errno) */
#define LMSG_PARALLEL_PARALLEL_MAP_START_WORKER_PROCESSES \
  "parallel_map: cannot start worker processes (%s)"
/* arguments: started, workers */
#define LMSG_PARALLEL_PARALLEL_MAP_COULD_START_WORKERS \
  "parallel_map: could start only %d of %d workers"

/* ---- mbd.plot of series (l_plot_series.c) ---------------------------------------------------- */

/* no arguments */
#define LMSG_PLOT_MISSING_FIELD_FILE_PNG "plot: missing field 'file' (a .png or .svg path)"
/* no arguments */
#define LMSG_PLOT_FIELD_SERIES_EMPTY "plot: field 'series' is empty"
/* arguments: k + 1 */
#define LMSG_PLOT_SERIES_TABLE_X_Y \
  "plot: series[%d] expects a table {x = {..}, y = {..}, label = ..}"
/* arguments: k + 1 */
#define LMSG_PLOT_SERIES_NEEDS_LISTS_X "plot: series[%d] needs lists x and y of the same length"
/* arguments: k + 1 */
#define LMSG_PLOT_SERIES_X_Y_HOLD "plot: series[%d]: x and y must hold numbers only"

/* ---- joint coordinates: cut, solver, code, export_c, macro copies (l_relative.c) ------------- */

/* arguments: key, the value's type */
#define LMSG_RELATIVE_SIMULATE_FIELD_LIST_JOINT \
  "simulate: field '%s' expects a list of joint names, got %s"
/* arguments: key, i, the value's type */
#define LMSG_RELATIVE_SIMULATE_FIELD_JOINT_ENTRY \
  "simulate: field '%s' expects a list of joint names, entry %d is %s"
/* arguments: mbd_formulation_name(mbd_formulation_with(MBD_FCAP_JOINT_COORDS)) */
#define LMSG_RELATIVE_SIMULATE_FIELDS_CUT_SOLVER \
  "simulate: fields cut and solver are for formulation '%s'"
/* arguments: solver, mbd_formulation_names(all, sizeof all, MBD_FCAP_WRAPPED) */
#define LMSG_RELATIVE_SIMULATE_UNKNOWN_SOLVER "simulate: unknown solver '%s' (%s)"
/* arguments: code */
#define LMSG_RELATIVE_SIMULATE_UNKNOWN_CODE_NUMERIC \
  "simulate: unknown code '%s' (numeric, tape, compiled)"
/* arguments: mbd_formulation_name(joint), f */
#define LMSG_RELATIVE_KINEMATICS_FORMULATION_ABSENT_CARTESIAN \
  "kinematics: formulation is '%s' or absent (Cartesian), got '%s'"
/* arguments: mbd_formulation_name(joint) */
#define LMSG_RELATIVE_KINEMATICS_FIELD_CUT_FORMULATION \
  "kinematics: field cut is for formulation '%s'"
/* arguments: code */
#define LMSG_RELATIVE_KINEMATICS_UNKNOWN_CODE_NUMERIC \
  "kinematics: unknown code '%s' (numeric, tape, compiled)"
/* no arguments */
#define LMSG_RELATIVE_EXPORT_C_MISSING_FIELD_DIR "export_c: missing field 'dir'"
/* arguments: solver */
#define LMSG_RELATIVE_EXPORT_C_UNKNOWN_SOLVER_BAUMGARTE \
  "export_c: unknown solver '%s' (baumgarte, augmented)"
/* arguments: name, dim */
#define LMSG_RELATIVE_MACRO_COPY_ORIGIN_NUMBERS "macro copy '%s': origin expects %d numbers"
/* arguments: name */
#define LMSG_RELATIVE_MACRO_COPY_ROT_NUMBERS \
  "macro copy '%s': rot expects 4 numbers (Euler parameters)"

/* ---- mbd.rot (l_rot.c) ----------------------------------------------------------------------- */

/* arguments: fn, i, what, n */
#define LMSG_ROT_MBD_ROT_ARGUMENT_NUMBERS "mbd.rot.%s: argument %d (%s) expects %d numbers"
/* arguments: fn, i, what */
#define LMSG_ROT_MBD_ROT_ARGUMENT_FINITE "mbd.rot.%s: argument %d (%s) is not finite"
/* no arguments */
#define LMSG_ROT_MBD_ROT_AXIS_ANGLE_AXIS "mbd.rot.axis_angle: the axis is zero"
/* no arguments */
#define LMSG_ROT_MBD_ROT_ROTATE_EULER "mbd.rot.rotate: the Euler parameters are all zero"
/* no arguments */
#define LMSG_ROT_MBD_ROT_FROM_AXES_X "mbd.rot.from_axes: the x axis is zero"
/* no arguments */
#define LMSG_ROT_MBD_ROT_FROM_AXES_Y "mbd.rot.from_axes: the y axis is parallel to the x axis"

/* ---- runs: values, CSV, plots (l_run.c, l_run_core.c) ---------------------------------------- */

/* arguments: fn, name */
#define LMSG_RUN_CHANNEL_RUN_CHANNELS_LISTS "run:%s: no channel '%s' (run.channels lists them)"
/* arguments: t, n ? mbd_run_times(r)[n - 1] : 0.0 */
#define LMSG_RUN_VALUE_T_OUTSIDE_RECORDED "run:value: t = %f is outside the recorded span [0, %f]"
/* no arguments */
#define LMSG_RUN_WRITE_CSV_CHANNEL_NAMES_STRINGS "run:write_csv: channel names must be strings"
/* arguments: names[i] */
#define LMSG_RUN_WRITE_CSV_CHANNEL "run:write_csv: no channel '%s'"
/* arguments: the engine's message */
#define LMSG_RUN_WRITE_CSV "run:write_csv: %s"
/* arguments: key, the value's type */
#define LMSG_RUN_PLOT_FIELD_LIST_NUMBERS "plot: field '%s' expects a list of numbers, got %s"
/* arguments: key */
#define LMSG_RUN_PLOT_FIELD_ENTRY_NUMBER "plot: field '%s' has an entry that is not a number"
/* no arguments */
#define LMSG_RUN_PLOT_HEATMAP_NEEDS_NON "plot: heatmap needs non-empty x and y"
/* arguments: the value's type */
#define LMSG_RUN_PLOT_FIELD_Z_MATRIX \
  "plot: field 'z' expects a matrix z[j][i] or a flat list, got %s"
/* arguments: ny, (int)luaL_len(L, zi) */
#define LMSG_RUN_PLOT_FIELD_Z_ROWS "plot: field 'z' expects %d rows (one per y), got %d"
/* arguments: j + 1, nx */
#define LMSG_RUN_PLOT_FIELD_Z_ROW "plot: field 'z': row %d expects %d numbers (one per x)"
/* arguments: nx * ny */
#define LMSG_RUN_PLOT_FIELD_Z_NUMBERS "plot: field 'z' expects %d numbers (x fastest)"
/* arguments: kind */
#define LMSG_RUN_PLOT_UNKNOWN_KIND_LINES "plot: unknown kind '%s' (lines, heatmap)"
/* arguments: the value's type */
#define LMSG_RUN_PLOT_FIELD_RUN_MBD "plot: field 'run' expects an mbd.Run, got %s"
/* arguments: i */
#define LMSG_RUN_PLOT_RUNS_MBD_RUN "plot: runs[%d] is not an mbd.Run"
/* no arguments */
#define LMSG_RUN_PLOT_MISSING_FIELD_RUN "plot: missing field 'run' (or 'runs')"
/* arguments: i */
#define LMSG_RUN_PLOT_Y_CHANNEL_NAME "plot: y[%d] must be a channel name"
/* no arguments */
#define LMSG_RUN_PLOT_FIELD_Y_CHANNEL "plot: field 'y' expects a channel name or a list of them"
/* no arguments */
#define LMSG_RUN_PLOT_FIELD_Y_EMPTY "plot: field 'y' is empty"
/* arguments: xname, i */
#define LMSG_RUN_PLOT_CHANNEL_RUN "plot: no channel '%s' in run %d"
/* arguments: yname, i */
#define LMSG_RUN_PLOT_CHANNEL_RUN_RUN "plot: no channel '%s' in run %d (run.channels lists them)"

/* ---- the run options and the end of a run (l_simulate.c) ------------------------------------- */

/* arguments: fn, ig */
#define LMSG_SIMULATE_UNKNOWN_INTEGRATOR_ADAMS_RK45 \
  "%s: unknown integrator '%s' (adams, rk45, bdf, rk4, rkf45)"
/* arguments: fn */
#define LMSG_SIMULATE_INTEGRATOR_RK4_NEEDS_FIELD \
  "%s: integrator 'rk4' needs field 'step' (the fixed step h)"
/* arguments: fn, mbd_integrator_name(io->kind) */
#define LMSG_SIMULATE_FIELD_MAX_ORDER_INTEGRATORS_ADAMS \
  "%s: field 'max_order' is for integrators adams and bdf (got '%s')"
/* arguments: fn, top, mbd_integrator_name(io->kind), io->max_order */
#define LMSG_SIMULATE_FIELD_MAX_ORDER_INTEGRATOR \
  "%s: field 'max_order' must be 1 to %d for integrator '%s', got %d"
/* arguments: fn, io->step as text */
#define LMSG_SIMULATE_FIELD_STEP_POSITIVE_FINITE \
  "%s: field 'step' must be positive, finite and at most t_end, got %s"
/* arguments: fn, 1e-9 * *f->t_end as text, io->max_step as text */
#define LMSG_SIMULATE_FIELD_MAX_STEP_FINITE_LEAST \
  "%s: field 'max_step' must be finite and at least 1e-9·t_end = %s, got %s"
/* arguments: fn, *f->output_every as text */
#define LMSG_SIMULATE_FIELD_OUTPUT_EVERY_POSITIVE_FINITE \
  "%s: field 'output_every' must be positive and finite, got %s"
/* arguments: fn, *f->position_tol as text */
#define LMSG_SIMULATE_FIELD_POSITION_TOL_POSITIVE_FINITE \
  "%s: field 'position_tol' must be positive and finite, got %s"
/* arguments: fn, *f->max_newton */
#define LMSG_SIMULATE_FIELD_MAX_NEWTON_LEAST "%s: field 'max_newton' must be at least 1, got %d"
/* arguments: fn, *f->steps */
#define LMSG_SIMULATE_FIELD_STEPS_LEAST "%s: field 'steps' must be at least 1, got %d"
/* arguments: fn, the value's type */
#define LMSG_SIMULATE_FIELD_QUIET_TRUE_FALSE "%s: field 'quiet' expects true or false, got %s"
/* arguments: the engine's message, n > 0 ? mbd_run_times(run)[n - 1] : 0.0, kept */
#define LMSG_SIMULATE_RUN_UP_T_KEPT "%s (the run up to t = %f is kept in %s)"
/* arguments: name, mbd_formulation_names(all, sizeof all, 0) */
#define LMSG_SIMULATE_UNKNOWN_FORMULATION "simulate: unknown formulation '%s' (%s)"
/* arguments: key, mbd_formulation_name(mbd_formulation_with(MBD_FCAP_STAB_MATRICES)) */
#define LMSG_SIMULATE_STABILIZATION_FORMULATION "simulate: stabilization %s is for formulation '%s'"
/* arguments: key, k ? "beta" : "alpha", k ? "beta" : "alpha" */
#define LMSG_SIMULATE_STABILIZATION_MATRIX_I \
  "simulate: stabilization %s: give a matrix (or %s for %s I)"
/* no arguments */
#define LMSG_SIMULATE_STABILIZATION_S_T_SAME \
  "simulate: stabilization S and T must have the same size"
/* arguments: ls */
#define LMSG_SIMULATE_UNKNOWN_LINEAR_SOLVER_AUTO_DENSE \
  "simulate: unknown linear_solver '%s' (auto, dense, sparse, recursive)"

/* ---- symbolic expressions (l_sym.c) ---------------------------------------------------------- */

/* no arguments */
#define LMSG_SYM_OUT_MEMORY "sym: out of memory"
/* arguments: lua_tostring(L, idx) */
#define LMSG_SYM_SUBS_UNKNOWN_VARIABLE "subs: unknown variable '%s'"
/* arguments: the value's type */
#define LMSG_SYM_SUBS_KEYS_VARIABLES_VARIABLE \
  "subs: keys must be variables or variable names, got %s"
/* arguments: mbd_sym_var_name(ctx, vars[k]), the value's type */
#define LMSG_SYM_SUBS_VALUE_NUMBER_MBD "subs: value for '%s' must be a number or an mbd.Sym, got %s"
/* arguments: name */
#define LMSG_SYM_EVAL_VALUE_VARIABLE "eval: no value for variable '%s'"
/* arguments: name, the value's type */
#define LMSG_SYM_EVAL_VALUE_NUMBER "eval: value of '%s' must be a number, got %s"

/* ---- mbd.system (l_system.c) ----------------------------------------------------------------- */

/* arguments: the value's type */
#define LMSG_SYSTEM_FIELD_Q_LIST_COORDINATE \
  "system: field 'q' expects a list of coordinate names, got %s"
/* no arguments */
#define LMSG_SYSTEM_FIELD_Q_EMPTY "system: field 'q' is empty"
/* arguments: i + 1 */
#define LMSG_SYSTEM_FIELD_Q_ENTRY_NAME "system: field 'q': entry %d must be a name (string)"
/* arguments: n, len */
#define LMSG_SYSTEM_FIELD_FORCE_ENTRIES_ONE \
  "system: field 'force' expects %d entries (one per coordinate), got %d"
/* arguments: i + 1, the value's type */
#define LMSG_SYSTEM_FIELD_FORCE_ENTRY_NUMBER \
  "system: field 'force': entry %d must be a number or a symbolic expression, got %s"
/* arguments: the value's type */
#define LMSG_SYSTEM_FIELD_FORCE_LIST_SYMBOLIC \
  "system: field 'force' expects a list, a symbolic vector or a function(t, q, qd), got %s"
/* arguments: fn, the value's type */
#define LMSG_SYSTEM_LIST_SYMBOLIC_EXPRESSIONS "%s: expects a list of symbolic expressions, got %s"
/* arguments: fn */
#define LMSG_SYSTEM_LIST_EMPTY "%s: the list is empty"
/* arguments: fn, i, the value's type */
#define LMSG_SYSTEM_ENTRY_SYMBOLIC_EXPRESSION_SYSTEM \
  "%s: entry %d must be a symbolic expression of the system's coordinates, got %s"
/* arguments: pairs[k][0], pairs[k][1] */
#define LMSG_SYSTEM_SIMULATE_STABILIZATION_EITHER_BOTH \
  "simulate: stabilization: give either %s or %s, not both"
/* arguments: key, k < 2 ? "holonomic" : "nonholonomic", mbd_system_name(s) */
#define LMSG_SYSTEM_SIMULATE_STABILIZATION_NEEDS_CONSTRAINTS \
  "simulate: stabilization '%s' needs %s constraints, and system '%s' has none"
/* arguments: key, pairs[k][1] */
#define LMSG_SYSTEM_SIMULATE_STABILIZATION_NUMBER_LIST \
  "simulate: stabilization '%s' is a number or a list (the diagonal); use %s for a full matrix"
/* arguments: mbd_formulation_name(f), name */
#define LMSG_SYSTEM_SIMULATE_MBD_SYSTEM_RUNS                                                    \
  "simulate: an mbd.system runs with formulation '%s' only (got '%s'); build an mbd.model for " \
  "the other formulations"
/* arguments: t, ns ? ts[0] : 0.0, ns ? ts[ns - 1] : 0.0 */
#define LMSG_SYSTEM_EXPLAIN_T_OUTSIDE_RUN "explain: t = %f is outside the run (%f .. %f s)"
/* arguments: ch */
#define LMSG_SYSTEM_EXPLAIN_RUN_CHANNEL_RUN \
  "explain: the run has no channel '%s' (is it a run of this system?)"
/* no arguments */
#define LMSG_SYSTEM_STABILITY_S_T_HOLONOMIC \
  "stability: give S and T (holonomic) or L (nonholonomic), not both"
/* no arguments */
#define LMSG_SYSTEM_STABILITY_MISSING_FIELDS_S \
  "stability: missing fields S and T (holonomic) or L (nonholonomic)"

/* ---- the field walker of constructor tables (l_util.c) --------------------------------------- */

/* arguments: ctor, the value's type */
#define LMSG_UTIL_TABLE_NAMED_FIELDS "%s: expects a table of named fields, got %s"
/* arguments: ctor, the value's type */
#define LMSG_UTIL_TABLE_NAMED_FIELDS_FOUND "%s: expects a table of named fields (found a %s key)"
/* arguments: ctor, k, lua_tostring(L, -1) */
#define LMSG_UTIL_UNKNOWN_FIELD_FIELDS "%s: unknown field '%s' (fields: %s)"
/* arguments: ctor, key, the value's type */
#define LMSG_UTIL_FIELD_NUMBER "%s: field '%s' expects a number, got %s"
/* arguments: ctor, key, num */
#define LMSG_UTIL_FIELD_INTEGER "%s: field '%s' expects an integer, got %s"
/* arguments: ctor, key, n, t == LUA_TTABLE ? "a table with a non-number entry" : the value's type
 */
#define LMSG_UTIL_FIELD_NUMBERS "%s: field '%s' expects %d numbers, got %s"
/* arguments: ctor, key, n, got */
#define LMSG_UTIL_FIELD_NUMBERS_COUNT "%s: field '%s' expects %d numbers, got %d"
/* arguments: ctor, key, the value's type */
#define LMSG_UTIL_FIELD_STRING "%s: field '%s' expects a string, got %s"
/* arguments: ctor, key, the value's type */
#define LMSG_UTIL_FIELD_FUNCTION "%s: field '%s' expects a function, got %s"
/* arguments: ctor, key */
#define LMSG_UTIL_FIELD_MATRIX_LIST_DIAGONAL \
  "%s: field '%s' expects a matrix {{...}, ...} or a list of its diagonal"
/* arguments: ctor, key, the value's type */
#define LMSG_UTIL_FIELD_NUMBER_LIST_MATRIX \
  "%s: field '%s' expects a number, a list or a matrix, got %s"
/* arguments: ctor, key, want > 0 ? want : 1, len */
#define LMSG_UTIL_FIELD_ROWS "%s: field '%s' expects %d rows, got %d"
/* arguments: ctor, key */
#define LMSG_UTIL_FIELD_MOST_ROWS "%s: field '%s': at most 64 rows"
/* arguments: ctor, key, i + 1, len */
#define LMSG_UTIL_FIELD_ROW_NUMBERS "%s: field '%s': row %d expects %d numbers"
/* arguments: ctor, key, i + 1 */
#define LMSG_UTIL_FIELD_ENTRY_NUMBER "%s: field '%s': entry %d is not a number"

/* ---- the REPL (repl.c) ----------------------------------------------------------------------- */

/* no arguments */
#define LMSG_REPL_INTERRUPTED "interrupted!"
/* no arguments */
#define LMSG_REPL_ENOUGH_MEMORY_LINE_INPUT "not enough memory for line input"

/* ---- messages that are not raised by luaL_error ---------------------------------------------- */

/* a Lua error value that is not a string (parallel_map's workers; in parentheses at the top level
 * and in the REPL): no arguments */
#define LMSG_ERROR_NOT_STRING "error object is not a string"
/* parallel_map's fn returned neither a number nor a table: the value's type */
#define LMSG_PARALLEL_RESULT_TYPE \
  "parallel_map: fn must return a number or a table of numbers, got %s"
/* the result of a point whose MPI rank stopped early: the point */
#define LMSG_PARALLEL_RANK_STOPPED "parallel_map: point %d got no result (its MPI rank stopped)"
/* the result of a point whose worker process died: the point */
#define LMSG_PARALLEL_WORKER_DIED "parallel_map: point %d got no result (its worker process died)"
/* the results would not fit: points, GB needed, GB allowed */
#define LMSG_PARALLEL_TOO_LARGE                                                             \
  "parallel_map: %d points need at least %.3g GB for their results, more than the %.3g GB " \
  "allowed (a quarter of the memory, or MBD_MAX_WORKSPACE_GB): split the work"
/* a point field with the wrong count: the field walker's name (length, text), field, expected
 * count, count given, the name again, "spatial" or "planar", dim, "{x, y, z}" or "{x, y}" */
#define LMSG_UTIL_FIELD_NUMBERS_DIM \
  "%.*s: field '%s' expects %d numbers, got %d (%s; the model is %s, dim = %d: %s)"
/* a symbolic operation failed without the context's message: no arguments */
#define LMSG_SYM_INVALID "sym: invalid expression"
/* luaL_argerror's text for an argument that is not a variable: no arguments */
#define LMSG_SYM_VARIABLE_EXPECTED "variable expected"
/* the command line: program name */
#define LMSG_MAIN_E_ARGUMENT "%s: '-e' needs an argument\n"
/* the command line: program name, option */
#define LMSG_MAIN_UNKNOWN_OPTION "%s: unrecognized option '%s'\n"
/* the help module did not load: program name, Lua's message */
#define LMSG_MAIN_NO_HELP "%s: warning: help() is not available: %s"
/* no Lua state: program name */
#define LMSG_MAIN_NOMEM "%s: cannot create the Lua state: not enough memory\n"
/* MPI would not start: no arguments */
#define LMSG_MPI_INIT "mbd: MPI_Init failed: sweeps cannot run over MPI\n"
/* the REPL's message for a non-string error value: its type */
#define LMSG_REPL_ERROR_TYPE "(error object is a %s value)"
/* the REPL could not install its local-keeping module: Lua's message or LMSG_REPL_NOT_MODULE */
#define LMSG_REPL_NO_LOCALS \
  "mbd: warning: the REPL does not keep locals from one line to the next: %s\n"
#define LMSG_REPL_NOT_MODULE "mbd.repl is not a module"

/* ---- warnings and notes printed at the script's line ----------------------------------------- */

/* a run's warning: the script's position, ": " after a position (or ""), the warning */
#define LMSG_WARNING_AT "mbd: warning: %s%s%s\n"
/* a run's note (a choice made for the user): as LMSG_WARNING_AT */
#define LMSG_NOTE_AT "mbd: note: %s%s%s\n"
/* a linearization's warning: as LMSG_WARNING_AT */
#define LMSG_LINEAR_WARNING_AT "mbd: warning: %s%slinearize: %s\n"
/* a model's or a system's warning: the script's position, the warning */
#define LMSG_WARNING_POS "mbd: warning: %s: %s\n"
/* a model's warning raised inside a callback, printed once: the warning */
#define LMSG_WARNING "mbd: warning: %s\n"

/* ---- parts of messages, passed as arguments of the templates above --------------------------- */

/* LMSG_CALLBACK_DRIVE_FIELD_POSITION_DRIVE when the derivative failed without a message */
#define LMSG_CALLBACK_NOT_DIFFERENTIABLE "cannot differentiate it"
/* LMSG_FEM_FIELD_NUMBERS_ONE_PER: a field that also takes a number; a list of another length */
#define LMSG_FEM_NUMBER_OR "a number or "
#define LMSG_FEM_OTHER_COUNT ", got another count"
/* LMSG_UTIL_FIELD_NUMBERS: what a table with a non-number entry is called */
#define LMSG_UTIL_NON_NUMBER_ENTRY "a table with a non-number entry"
/* LMSG_LINEAR_MISSING_FIELD_AXIS: the frame of the axis, on a body or global */
#define LMSG_LINEAR_AXIS_BODY "the body's symmetry axis, in its frame"
#define LMSG_LINEAR_AXIS_GLOBAL "global"

/* ---- errors of Lua callbacks, recorded in the engine's error (MBD_FAIL) --------------------- */

/* a callback raised: what ran ("force of body 'b' (script:12)"), its message or
 * LMSG_ERROR_NOT_STRING */
#define LMSG_CALLBACK_FAILED "%s: %s"
/* a point or vector callback returned the wrong thing: what ran, "a number", "{x, y}" or
 * "{x, y, z}", LMSG_CALLBACK_WRONG_SIZE or the value's type, t */
#define LMSG_CALLBACK_RESULT "%s: the function must return %s, got %s at t = %g"
/* a scalar callback returned no number: what ran, the value's type, t */
#define LMSG_CALLBACK_NUMBER "%s: the function must return a number, got %s at t = %g"
/* Ctrl-C during a run: t */
#define LMSG_CALLBACK_INTERRUPTED "interrupted at t = %g"
/* a system's force function returned the wrong thing: what ran, n, LMSG_CALLBACK_WRONG_SIZE or
 * the value's type, t */
#define LMSG_SYSTEM_FORCE_RESULT "%s: the function must return %d numbers, got %s at t = %g"
/* what a table of the wrong length is called in the two templates above */
#define LMSG_CALLBACK_WRONG_SIZE "a table of the wrong size"

#endif
