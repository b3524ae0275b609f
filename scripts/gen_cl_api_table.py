#!/usr/bin/env python3
"""Generates src/api/cl_api_table.inc, the one table of the OpenCL API surface.

Input: the Khronos ICD header CL/cl_icd.h. Its `struct _cl_icd_dispatch` gives the dispatch
table slots in ABI order; its `cl_api_<name>` typedefs give each entry point's return type and
parameter list. The header's preprocessor conditionals are evaluated for the target the agent is
built for (not Windows, CL_TARGET_OPENCL_VERSION 300, so every CL_VERSION_x_y is defined), the
way the compiler sees the header when it builds the agent.

The CL_FUNC_TYPE ids of the trace format and the "enqueue API" id ranges are interoperability
facts of the .atp format; they are kept below as data (AMD's CLFunctionEnumDefs numbering).

Output: an X-macro file. Every consumer defines the macros it needs before including it; the
ones it leaves undefined expand to nothing, and the file #undefs all of them at its end.

  PM_CL_API(slot, funcTypeId, isEnqueue, ReturnType, name, (T1 a, T2 b), (a, b))
      a dispatch slot with a callable entry point (gets a wrapper)
  PM_CL_API_RESERVED(slot, funcTypeId, isEnqueue, field)
      a dispatch slot with no usable prototype on this target (a `void *` placeholder, e.g. the
      Direct3D entries outside Windows): never wrapped, passed through unchanged
  PM_CL_API_NOT_IN_DISPATCH(funcTypeId, isEnqueue, name)
      a CL_FUNC_TYPE name that is not a dispatch slot (vendor extensions reached through
      clGetExtensionFunctionAddress*)
  PM_CL_FUNC_TYPE_UNKNOWN(funcTypeId)
      the id the trace format uses for an API it has no id for

funcTypeId is -1 where the format has no id for a slot; isEnqueue is 1 when the id is an
enqueue API (the timestamp line carries device times), else 0.

Usage:
  gen_cl_api_table.py [HEADER] [--output FILE]   write the table (default: the committed file)
  gen_cl_api_table.py [HEADER] --check           compare with the committed file; exit 1 if stale
"""

import argparse
import difflib
import os
import re
import sys
import tempfile

DEFAULT_HEADER = "/usr/include/CL/cl_icd.h"
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUTPUT = os.path.join(REPO_ROOT, "src", "api", "cl_api_table.inc")

# Macros taken as defined when evaluating the header's #if / #ifdef lines: the version macros
# cl_version.h defines for CL_TARGET_OPENCL_VERSION 300. Anything else (_WIN32, __cplusplus, ...)
# is undefined, as for a C compiler on Linux.
TARGET_DEFINES = {
    "CL_VERSION_1_0": "1",
    "CL_VERSION_1_1": "1",
    "CL_VERSION_1_2": "1",
    "CL_VERSION_2_0": "1",
    "CL_VERSION_2_1": "1",
    "CL_VERSION_2_2": "1",
    "CL_VERSION_3_0": "1",
}

# CL_FUNC_TYPE: the OpenCL API type ids written in field 1 of OpenCL timestamp lines.
CL_FUNC_TYPES = [
    (0, "clGetPlatformIDs"), (1, "clGetPlatformInfo"), (2, "clGetDeviceIDs"),
    (3, "clGetDeviceInfo"), (4, "clCreateContext"), (5, "clCreateContextFromType"),
    (6, "clRetainContext"), (7, "clReleaseContext"), (8, "clGetContextInfo"),
    (9, "clCreateCommandQueue"), (10, "clRetainCommandQueue"), (11, "clReleaseCommandQueue"),
    (12, "clGetCommandQueueInfo"), (13, "clCreateBuffer"), (14, "clCreateSubBuffer"),
    (15, "clCreateImage2D"), (16, "clCreateImage3D"), (17, "clRetainMemObject"),
    (18, "clReleaseMemObject"), (19, "clGetSupportedImageFormats"), (20, "clGetMemObjectInfo"),
    (21, "clGetImageInfo"), (22, "clSetMemObjectDestructorCallback"), (23, "clCreateSampler"),
    (24, "clRetainSampler"), (25, "clReleaseSampler"), (26, "clGetSamplerInfo"),
    (27, "clCreateProgramWithSource"), (28, "clCreateProgramWithBinary"),
    (29, "clRetainProgram"), (30, "clReleaseProgram"), (31, "clBuildProgram"),
    (32, "clUnloadCompiler"), (33, "clGetProgramInfo"), (34, "clGetProgramBuildInfo"),
    (35, "clCreateKernel"), (36, "clCreateKernelsInProgram"), (37, "clRetainKernel"),
    (38, "clReleaseKernel"), (39, "clSetKernelArg"), (40, "clGetKernelInfo"),
    (41, "clGetKernelWorkGroupInfo"), (42, "clWaitForEvents"), (43, "clGetEventInfo"),
    (44, "clCreateUserEvent"), (45, "clRetainEvent"), (46, "clReleaseEvent"),
    (47, "clSetUserEventStatus"), (48, "clSetEventCallback"), (49, "clGetEventProfilingInfo"),
    (50, "clFlush"), (51, "clFinish"), (52, "clEnqueueReadBuffer"),
    (53, "clEnqueueReadBufferRect"), (54, "clEnqueueWriteBuffer"),
    (55, "clEnqueueWriteBufferRect"), (56, "clEnqueueCopyBuffer"),
    (57, "clEnqueueCopyBufferRect"), (58, "clEnqueueReadImage"), (59, "clEnqueueWriteImage"),
    (60, "clEnqueueCopyImage"), (61, "clEnqueueCopyImageToBuffer"),
    (62, "clEnqueueCopyBufferToImage"), (63, "clEnqueueMapBuffer"), (64, "clEnqueueMapImage"),
    (65, "clEnqueueUnmapMemObject"), (66, "clEnqueueNDRangeKernel"), (67, "clEnqueueTask"),
    (68, "clEnqueueNativeKernel"), (69, "clEnqueueAcquireD3D10ObjectsKHR"),
    (70, "clEnqueueReleaseD3D10ObjectsKHR"), (71, "clEnqueueAcquireGLObjects"),
    (72, "clEnqueueReleaseGLObjects"), (73, "clEnqueueMarker"), (74, "clEnqueueWaitForEvents"),
    (75, "clEnqueueBarrier"), (76, "clCreateFromGLBuffer"), (77, "clCreateFromGLTexture2D"),
    (78, "clCreateFromGLTexture3D"), (79, "clCreateFromGLRenderbuffer"),
    (80, "clGetGLObjectInfo"), (81, "clGetGLTextureInfo"), (82, "clCreateEventFromGLsyncKHR"),
    (83, "clGetGLContextInfoKHR"), (84, "clCreateSubDevicesEXT"), (85, "clRetainDeviceEXT"),
    (86, "clReleaseDeviceEXT"), (87, "clGetDeviceIDsFromD3D10KHR"),
    (88, "clCreateFromD3D10BufferKHR"), (89, "clCreateFromD3D10Texture2DKHR"),
    (90, "clCreateFromD3D10Texture3DKHR"), (91, "clSetCommandQueueProperty"),
    (92, "clCreateSubDevices"), (93, "clRetainDevice"), (94, "clReleaseDevice"),
    (95, "clCreateImage"), (96, "clCreateProgramWithBuiltInKernels"), (97, "clCompileProgram"),
    (98, "clLinkProgram"), (99, "clUnloadPlatformCompiler"), (100, "clGetKernelArgInfo"),
    (101, "clEnqueueFillBuffer"), (102, "clEnqueueFillImage"),
    (103, "clEnqueueMigrateMemObjects"), (104, "clEnqueueMarkerWithWaitList"),
    (105, "clEnqueueBarrierWithWaitList"), (106, "clGetExtensionFunctionAddressForPlatform"),
    (107, "clCreateFromGLTexture"), (108, "clGetExtensionFunctionAddress"),
    (109, "clCreateCommandQueueWithProperties"), (110, "clCreatePipe"), (111, "clGetPipeInfo"),
    (112, "clSVMAlloc"), (113, "clSVMFree"), (114, "clEnqueueSVMFree"),
    (115, "clEnqueueSVMMemcpy"), (116, "clEnqueueSVMMemFill"), (117, "clEnqueueSVMMap"),
    (118, "clEnqueueSVMUnmap"), (119, "clCreateSamplerWithProperties"),
    (120, "clSetKernelArgSVMPointer"), (121, "clSetKernelExecInfo"), (122, "clSVMAllocAMD"),
    (123, "clSVMFreeAMD"), (124, "clEnqueueSVMFreeAMD"), (125, "clEnqueueSVMMemcpyAMD"),
    (126, "clEnqueueSVMMemFillAMD"), (127, "clEnqueueSVMMapAMD"), (128, "clEnqueueSVMUnmapAMD"),
    (129, "clSetKernelArgSVMPointerAMD"), (130, "clSetKernelExecInfoAMD"),
    (131, "clCreateSsgFileObjectAMD"), (132, "clGetSsgFileObjectInfoAMD"),
    (133, "clRetainSsgFileObjectAMD"), (134, "clReleaseSsgFileObjectAMD"),
    (135, "clEnqueueReadSsgFileAMD"), (136, "clEnqueueWriteSsgFileAMD"), (137, "clCloneKernel"),
    (138, "clCreateProgramWithIL"), (139, "clEnqueueSVMMigrateMem"),
    (140, "clGetDeviceAndHostTimer"), (141, "clGetHostTimer"), (142, "clGetKernelSubGroupInfo"),
    (143, "clSetDefaultDeviceCommandQueue"), (144, "clSetProgramReleaseCallback"),
    (145, "clSetProgramSpecializationConstant"),
]
CL_FUNC_TYPE_UNKNOWN = 146

# Inclusive CL_FUNC_TYPE id ranges of the "enqueue APIs" (those whose timestamp line carries the
# device part). clEnqueueWaitForEvents (74) and clEnqueueBarrier (75) have no event: not enqueue.
ENQUEUE_ID_RANGES = [(52, 73), (101, 105), (114, 118), (124, 128), (135, 136), (139, 139)]


def is_enqueue(func_type_id):
    return any(lo <= func_type_id <= hi for lo, hi in ENQUEUE_ID_RANGES)


class GenError(Exception):
    pass


# --- Reading the header -------------------------------------------------------------------------

def join_continuations(text):
    return text.replace("\\\n", "")


def evaluate_condition(expr, defines):
    """Evaluates a #if expression: defined(X), defined X, !, &&, ||, ==, !=, <, >, <=, >=,
    parentheses, integers and macro names (a name that is not defined reads as 0)."""
    expr = re.sub(r"/\*.*?\*/|//.*", " ", expr)
    expr = re.sub(r"\bdefined\s*\(\s*(\w+)\s*\)|\bdefined\s+(\w+)",
                  lambda m: "1" if (m.group(1) or m.group(2)) in defines else "0", expr)

    def name_value(m):
        word = m.group(0)
        if re.fullmatch(r"\d+[uUlL]*", word):
            return word.rstrip("uUlL")
        value = defines.get(word, "0").strip() or "0"
        return value if re.fullmatch(r"\d+", value) else "0"

    expr = re.sub(r"\b\w+\b", name_value, expr)
    if not re.fullmatch(r"[\d\s()!<>=&|]*", expr):
        raise GenError("cannot evaluate preprocessor condition: " + expr)
    expr = expr.replace("&&", " and ").replace("||", " or ")
    expr = re.sub(r"!(?!=)", " not ", expr)
    return bool(eval(expr, {"__builtins__": {}}, {}))  # only digits and operators remain


def preprocess(text, defines):
    """Keeps the lines the compiler would see; handles conditionals and simple #defines only
    (#include is not followed: the declarations we need are all in cl_icd.h itself)."""
    defines = dict(defines)
    out = []
    stack = []  # per open conditional: [this branch active, some branch taken, parent active]
    active = True
    for line in join_continuations(text).split("\n"):
        m = re.match(r"\s*#\s*(\w+)\s*(.*)", line)
        if not m:
            out.append(line if active else "")
            continue
        directive, rest = m.group(1), m.group(2).strip()
        if directive in ("if", "ifdef", "ifndef"):
            if directive == "if":
                taken = active and evaluate_condition(rest, defines)
            else:
                name = rest.split()[0]
                taken = active and ((name in defines) == (directive == "ifdef"))
            stack.append([taken, taken, active])
            active = taken
        elif directive == "elif":
            frame = stack[-1]
            frame[0] = frame[2] and not frame[1] and evaluate_condition(rest, defines)
            frame[1] = frame[1] or frame[0]
            active = frame[0]
        elif directive == "else":
            frame = stack[-1]
            frame[0] = frame[2] and not frame[1]
            frame[1] = True
            active = frame[0]
        elif directive == "endif":
            active = stack.pop()[2]
        elif directive == "define" and active:
            dm = re.match(r"(\w+)(?!\()\s*(.*)", rest)
            if dm:
                defines[dm.group(1)] = dm.group(2)
        elif directive == "undef" and active:
            defines.pop(rest.split()[0], None)
        out.append("")
    if stack:
        raise GenError("unbalanced #if / #endif in header")
    return "\n".join(out)


COMMENT_RE = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def split_top_level(text, sep=","):
    parts, depth, current = [], 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return parts


def matching_paren(text, open_index):
    depth = 0
    for i in range(open_index, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    raise GenError("unbalanced parentheses in: " + text[open_index:open_index + 80])


def normalize_type(text):
    """Canonical spelling of a type: single spaces, `T*` with no space before the stars."""
    text = COMMENT_RE.sub(" ", text)
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s*\*\s*", "*", text)
    text = re.sub(r"\*(?=\w)", "* ", text)
    text = re.sub(r"\s*\(\s*", "(", text)
    text = re.sub(r"\s*\)\s*", ")", text)
    text = re.sub(r"\s*,\s*", ", ", text)
    text = re.sub(r"\)\(", ")(", text)
    return text


TYPE_WORDS = {"const", "volatile", "unsigned", "signed", "struct", "enum", "void", "char",
              "short", "int", "long", "float", "double", "size_t"}


def comment_name(text):
    for comment in re.findall(r"/\*(.*?)\*/", text, re.S):
        name = re.sub(r"\[\s*\]", "", comment).strip()
        if re.fullmatch(r"[A-Za-z_]\w*", name):
            return name
    return None


def parse_parameter(raw, index):
    """Returns (declaration with name, name) for one parameter of a prototype."""
    fp = re.match(r"(?s)(.*?)\(\s*(CL_CALLBACK)?\s*\*(.*?)\)\s*(\(.*\))\s*$", raw)
    if fp:  # function pointer: RET (CL_CALLBACK *name)(ARGS)
        ret, callconv, inner, args = fp.groups()
        name = COMMENT_RE.sub(" ", inner).strip() or comment_name(inner) or "arg%d" % index
        callconv = (callconv or "") + "* "
        decl = "%s(%s%s)%s" % (normalize_type(ret), callconv, name, normalize_type(args))
        return decl, name
    code = COMMENT_RE.sub(" ", raw).strip()
    m = re.fullmatch(r"(?s)(.*?[\w*\s])\b([A-Za-z_]\w*)\s*(\[\s*\w*\s*\])?", code)
    if m and m.group(2) not in TYPE_WORDS and re.search(r"\w", m.group(1)):
        type_text, name = m.group(1), m.group(2)
        if m.group(3):  # an array parameter is a pointer parameter
            type_text += "*"
    else:
        type_text, name = code, comment_name(raw) or "arg%d" % index
    type_text = normalize_type(type_text)
    return "%s %s" % (type_text, name), name


def blank_comments(code):
    """The same text with every comment replaced by spaces (newlines kept), so that offsets
    found in it index the original text too."""
    return COMMENT_RE.sub(lambda c: re.sub(r"[^\n]", " ", c.group(0)), code)


def tame_comments(text):
    """Drops line comments and removes the characters that structure a parameter list from
    block comments, which may then be read as parameter names."""
    return COMMENT_RE.sub(
        lambda c: "/*%s*/" % re.sub(r"[(),\[\]]", " ", c.group(0)[2:-2])
        if c.group(0).startswith("/*") else " ", text)


def parse_typedefs(code):
    """Maps API name -> ("function", return type, [(decl, name)]) or ("placeholder",).
    Parameter names may only exist as comments (`cl_mem /* buffer */`), so the bodies are read
    from the text with its comments."""
    blank = blank_comments(code)
    apis = {}
    for m in re.finditer(r"\btypedef\b", blank):
        end = blank.index(";", m.end())
        body = code[m.end():end]
        blank_body = blank[m.end():end]
        if "{" in blank_body or not re.search(r"\bcl_api_\w+", blank_body):
            continue  # a struct (the dispatch table itself) or another typedef
        name_m = re.search(r"\bcl_api_(\w+)\b", blank_body)
        name = name_m.group(1)
        before = body[:name_m.start()]
        if "(" not in blank_body[:name_m.start()]:  # typedef void *cl_api_clXxx;
            apis[name] = ("placeholder",)
            continue
        open_ret = blank_body.rindex("(", 0, name_m.start())
        ret = normalize_type(re.sub(r"\b(CL_API_ENTRY|CL_API_CALL)\b", " ", before[:open_ret]))
        params_open = blank_body.index("(", name_m.end())
        params = tame_comments(body[params_open + 1:matching_paren(blank_body, params_open)])
        if COMMENT_RE.sub("", params).strip() in ("", "void"):
            plist = []
        else:
            plist = [parse_parameter(p, i) for i, p in enumerate(split_top_level(params))]
        apis[name] = ("function", ret, plist)
    return apis


def parse_dispatch_fields(code):
    m = re.search(r"\bstruct\s+_cl_icd_dispatch\s*\{", code)
    if not m:
        raise GenError("struct _cl_icd_dispatch not found")
    body = code[m.end():code.index("}", m.end())]
    fields = []
    for decl in body.split(";"):
        decl = " ".join(decl.split())
        if not decl:
            continue
        fm = re.fullmatch(r"(.*?)\s*\b(\w+)\s*(?:\[\s*(\d+)\s*\])?", decl)
        if not fm:
            raise GenError("cannot read dispatch field: " + decl)
        type_text, field, count = fm.group(1), fm.group(2), fm.group(3)
        if count is None:
            fields.append((type_text, field))
        else:
            fields.extend((type_text, "%s[%d]" % (field, i)) for i in range(int(count)))
    return fields


# --- Building the table -------------------------------------------------------------------------

def build_table(header_text):
    code = preprocess(header_text, TARGET_DEFINES)
    typedefs = parse_typedefs(code)
    ids = {name: i for i, name in CL_FUNC_TYPES}
    rows, warnings = [], []
    for slot, (type_text, field) in enumerate(parse_dispatch_fields(blank_comments(code))):
        tm = re.fullmatch(r"cl_api_(\w+)", type_text)
        api = tm.group(1) if tm else None
        if api is not None and api != field:
            raise GenError("slot %d: field %s has type %s" % (slot, field, type_text))
        func_type = ids.get(field, -1)
        info = typedefs.get(api) if api else None
        if info is None or info[0] == "placeholder":
            if api is None:
                why = "placeholder field"
            elif info is None:
                why = "no typedef cl_api_%s in the header" % api
                warnings.append("slot %d %s: %s, passed through" % (slot, field, why))
            else:
                why = "no prototype for this target"
            rows.append(("reserved", slot, func_type, field, why))
        else:
            rows.append(("api", slot, func_type, field, info[1], info[2]))
        if func_type < 0:
            warnings.append("slot %d %s: no CL_FUNC_TYPE id (funcTypeId -1)" % (slot, field))
    in_dispatch = {row[3] for row in rows}
    extras = [(i, name) for i, name in CL_FUNC_TYPES if name not in in_dispatch]
    return rows, extras, warnings


def check_data():
    ids = [i for i, _ in CL_FUNC_TYPES]
    names = [n for _, n in CL_FUNC_TYPES]
    if ids != list(range(len(ids))) or len(set(names)) != len(names):
        raise GenError("CL_FUNC_TYPES must number 0..N-1 with unique names")
    if CL_FUNC_TYPE_UNKNOWN != len(ids):
        raise GenError("CL_FUNC_TYPE_UNKNOWN must follow the last id")
    for i, name in CL_FUNC_TYPES:
        if is_enqueue(i) and not name.startswith("clEnqueue"):
            raise GenError("enqueue id %d is %s" % (i, name))


HEADER_COMMENT = """\
// GENERATED FILE - do not edit.
// Generated by scripts/gen_cl_api_table.py from the Khronos header CL/cl_icd.h
// (struct _cl_icd_dispatch and the cl_api_* typedefs, read for a non-Windows target with
// CL_TARGET_OPENCL_VERSION 300) and the CL_FUNC_TYPE ids of the .atp trace format.
// Regenerate: python3 scripts/gen_cl_api_table.py [path/to/CL/cl_icd.h]
// Check:      python3 scripts/gen_cl_api_table.py [path/to/CL/cl_icd.h] --check
//
// X-macro table of the OpenCL API surface. Define the macros you need, then include this file;
// macros left undefined expand to nothing, and all four are #undef'd at the end.
//
//   PM_CL_API(slot, funcTypeId, isEnqueue, ReturnType, name, (T1 a, T2 b, ...), (a, b, ...))
//       dispatch slot `slot` of cl_icd_dispatch, field `name`, with a callable prototype
//   PM_CL_API_RESERVED(slot, funcTypeId, isEnqueue, field)
//       dispatch slot with no prototype on this target: not wrapped, passed through
//   PM_CL_API_NOT_IN_DISPATCH(funcTypeId, isEnqueue, name)
//       CL_FUNC_TYPE id of an API that is not a dispatch slot (extension functions)
//   PM_CL_FUNC_TYPE_UNKNOWN(funcTypeId)
//       the id written for an API the format has no id for
//
// funcTypeId: CL_FUNC_TYPE id of the .atp format, -1 when it has none. isEnqueue: 1 when the
// id is an enqueue API (its timestamp line carries device times). Every CL_FUNC_TYPE name
// appears exactly once in this file.
"""


def render(rows, extras):
    lines = [HEADER_COMMENT]
    for macro in ("PM_CL_API", "PM_CL_API_RESERVED", "PM_CL_API_NOT_IN_DISPATCH",
                  "PM_CL_FUNC_TYPE_UNKNOWN"):
        lines.append("#ifndef %s\n#define %s(...)\n#endif" % (macro, macro))
    lines.append("")
    lines.append("// Dispatch slots, in table order.")
    for row in rows:
        flag = 1 if row[2] >= 0 and is_enqueue(row[2]) else 0
        if row[0] == "reserved":
            lines.append("PM_CL_API_RESERVED(%d, %d, %d, %s)  // %s"
                         % (row[1], row[2], flag, row[3], row[4]))
        else:
            _, slot, func_type, name, ret, params = row
            decls = ", ".join(d for d, _ in params)
            args = ", ".join(n for _, n in params)
            lines.append("PM_CL_API(%d, %d, %d, %s, %s, (%s), (%s))"
                         % (slot, func_type, flag, ret, name, decls, args))
    lines.append("")
    lines.append("// CL_FUNC_TYPE ids of APIs that are not dispatch slots.")
    for func_type, name in extras:
        lines.append("PM_CL_API_NOT_IN_DISPATCH(%d, %d, %s)"
                     % (func_type, 1 if is_enqueue(func_type) else 0, name))
    lines.append("")
    lines.append("PM_CL_FUNC_TYPE_UNKNOWN(%d)" % CL_FUNC_TYPE_UNKNOWN)
    lines.append("")
    lines.append("#undef PM_CL_API\n#undef PM_CL_API_RESERVED\n#undef PM_CL_API_NOT_IN_DISPATCH"
                 "\n#undef PM_CL_FUNC_TYPE_UNKNOWN")
    return "\n".join(lines) + "\n"


def generate(header_path):
    with open(header_path, encoding="utf-8") as f:
        rows, extras, warnings = build_table(f.read())
    if not rows:
        raise GenError("no dispatch slots found in " + header_path)
    return render(rows, extras), warnings


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("header", nargs="?", default=DEFAULT_HEADER, help="path to CL/cl_icd.h")
    parser.add_argument("--output", default=DEFAULT_OUTPUT, help="table file to write or check")
    parser.add_argument("--check", action="store_true",
                        help="regenerate to a temporary file and diff against --output")
    parser.add_argument("--quiet", action="store_true", help="do not list the warnings")
    args = parser.parse_args(argv)
    try:
        check_data()
        text, warnings = generate(args.header)
    except (GenError, OSError, ValueError) as e:
        print("gen_cl_api_table: error: %s" % e, file=sys.stderr)
        return 2
    if warnings and not args.quiet:
        print("gen_cl_api_table: warnings:", file=sys.stderr)
        for w in warnings:
            print("  " + w, file=sys.stderr)
    if args.check:
        return check(text, args.output)
    with open(args.output, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    return 0


def check(text, committed_path):
    with tempfile.NamedTemporaryFile("w", suffix=".inc", delete=False, encoding="utf-8",
                                     newline="\n") as tmp:
        tmp.write(text)
    try:
        with open(tmp.name, encoding="utf-8") as f:
            fresh = f.read().splitlines(keepends=True)
        try:
            with open(committed_path, encoding="utf-8") as f:
                committed = f.read().splitlines(keepends=True)
        except OSError:
            committed = []
        if fresh == committed:
            print("cl_api_table.inc is up to date")
            return 0
        rel = os.path.relpath(committed_path, REPO_ROOT)
        sys.stdout.writelines(difflib.unified_diff(committed, fresh, rel, "regenerated"))
        print("\n%s is stale: run python3 scripts/gen_cl_api_table.py" % rel)
        return 1
    finally:
        os.unlink(tmp.name)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
