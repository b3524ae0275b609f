#!/usr/bin/env python3
"""Generates src/api/hsa_api_table.inc, the one table of the HSA API surface the agent wraps.

Input: the ROCm runtime headers (Debian's libhsa-runtime-dev, /usr/include/hsa). The structs
CoreApiTable and AmdExtTable of hsa_api_trace.h give the table slots in ABI order; the
prototypes of hsa.h, hsa_ext_amd.h and hsa_api_trace.h give each entry point's return type and
parameters; the enums of those headers give the names printed for enum values.

The HSA_API_Type ids of the trace format (the .atp timestamp lines) are interoperability facts
of the format; they are kept below as data.

Output: an X-macro file. Consumers define the macros they need before including it; the ones
they leave undefined expand to nothing, and the file #undefs all of them at its end.

  PM_HSA_API(slot, Table, apiTypeId, name, "retKind", "param:kind;param:kind")
      one table slot: global slot number (CoreApiTable first, then AmdExtTable), the table,
      the HSA_API_Type id (-1 when the format has none), the entry point (its table field is
      name##_fn), the kind of its return value and of each parameter (see kindOf below)
  PM_HSA_API_TYPE(apiTypeId, name)
      every HSA_API_Type id of the format with its name
  PM_HSA_ENUM(type, value, NAME)
      the constants of the enums used by parameters (value as a signed decimal)

Usage:
  python3 scripts/gen_hsa_api_table.py [include-dir]           writes the .inc
  python3 scripts/gen_hsa_api_table.py [include-dir] --check   exits 1 when it differs
"""
import os
import re
import sys

OUT = os.path.join(os.path.dirname(__file__), "..", "src", "api", "hsa_api_table.inc")

# HSA_API_Type ids of the trace format (index = id), "Init"/"Unload" included.
API_TYPES = """
hsa_status_string hsa_init hsa_shut_down hsa_system_get_info hsa_system_extension_supported
hsa_system_get_extension_table hsa_agent_get_info hsa_iterate_agents
hsa_agent_get_exception_policies hsa_agent_extension_supported hsa_signal_create
hsa_signal_destroy hsa_signal_load_scacquire hsa_signal_load_relaxed hsa_signal_store_relaxed
hsa_signal_store_screlease hsa_signal_exchange_scacq_screl hsa_signal_exchange_scacquire
hsa_signal_exchange_relaxed hsa_signal_exchange_screlease hsa_signal_cas_scacq_screl
hsa_signal_cas_scacquire hsa_signal_cas_relaxed hsa_signal_cas_screlease
hsa_signal_add_scacq_screl hsa_signal_add_scacquire hsa_signal_add_relaxed
hsa_signal_add_screlease hsa_signal_subtract_scacq_screl hsa_signal_subtract_scacquire
hsa_signal_subtract_relaxed hsa_signal_subtract_screlease hsa_signal_and_scacq_screl
hsa_signal_and_scacquire hsa_signal_and_relaxed hsa_signal_and_screlease
hsa_signal_or_scacq_screl hsa_signal_or_scacquire hsa_signal_or_relaxed
hsa_signal_or_screlease hsa_signal_xor_scacq_screl hsa_signal_xor_scacquire
hsa_signal_xor_relaxed hsa_signal_xor_screlease hsa_signal_wait_scacquire
hsa_signal_wait_relaxed hsa_queue_create hsa_soft_queue_create hsa_queue_destroy
hsa_queue_inactivate hsa_queue_load_read_index_scacquire hsa_queue_load_read_index_relaxed
hsa_queue_load_write_index_scacquire hsa_queue_load_write_index_relaxed
hsa_queue_store_write_index_relaxed hsa_queue_store_write_index_screlease
hsa_queue_cas_write_index_scacq_screl hsa_queue_cas_write_index_scacquire
hsa_queue_cas_write_index_relaxed hsa_queue_cas_write_index_screlease
hsa_queue_add_write_index_scacq_screl hsa_queue_add_write_index_scacquire
hsa_queue_add_write_index_relaxed hsa_queue_add_write_index_screlease
hsa_queue_store_read_index_relaxed hsa_queue_store_read_index_screlease hsa_region_get_info
hsa_agent_iterate_regions hsa_memory_allocate hsa_memory_free hsa_memory_copy
hsa_memory_assign_agent hsa_memory_register hsa_memory_deregister hsa_isa_from_name
hsa_isa_get_info hsa_isa_compatible hsa_code_object_serialize hsa_code_object_deserialize
hsa_code_object_destroy hsa_code_object_get_info hsa_code_object_get_symbol
hsa_code_symbol_get_info hsa_code_object_iterate_symbols hsa_executable_create
hsa_executable_destroy hsa_executable_load_code_object hsa_executable_freeze
hsa_executable_get_info hsa_executable_global_variable_define
hsa_executable_agent_global_variable_define hsa_executable_readonly_variable_define
hsa_executable_validate hsa_executable_get_symbol hsa_executable_symbol_get_info
hsa_executable_iterate_symbols hsa_ext_program_create hsa_ext_program_destroy
hsa_ext_program_add_module hsa_ext_program_iterate_modules hsa_ext_program_get_info
hsa_ext_program_finalize hsa_ext_image_get_capability hsa_ext_image_data_get_info
hsa_ext_image_create hsa_ext_image_destroy hsa_ext_image_copy hsa_ext_image_import
hsa_ext_image_export hsa_ext_image_clear hsa_ext_sampler_create hsa_ext_sampler_destroy
hsa_amd_coherency_get_type hsa_amd_coherency_set_type hsa_amd_profiling_set_profiler_enabled
hsa_amd_profiling_async_copy_enable hsa_amd_profiling_get_dispatch_time
hsa_amd_profiling_get_async_copy_time hsa_amd_profiling_convert_tick_to_system_domain
hsa_amd_signal_async_handler hsa_amd_async_function hsa_amd_signal_wait_any
hsa_amd_image_get_info_max_dim hsa_amd_queue_cu_set_mask hsa_amd_memory_pool_get_info
hsa_amd_agent_iterate_memory_pools hsa_amd_memory_pool_allocate hsa_amd_memory_pool_free
hsa_amd_memory_async_copy hsa_amd_agent_memory_pool_get_info hsa_amd_agents_allow_access
hsa_amd_memory_pool_can_migrate hsa_amd_memory_migrate hsa_amd_memory_lock
hsa_amd_memory_unlock hsa_amd_memory_fill hsa_amd_interop_map_buffer
hsa_amd_interop_unmap_buffer hsa_amd_image_create hsa_extension_get_name
hsa_system_major_extension_supported hsa_system_get_major_extension_table hsa_cache_get_info
hsa_agent_iterate_caches hsa_agent_major_extension_supported hsa_signal_silent_store_relaxed
hsa_signal_silent_store_screlease hsa_signal_group_create hsa_signal_group_destroy
hsa_signal_group_wait_any_scacquire hsa_signal_group_wait_any_relaxed hsa_agent_iterate_isas
hsa_isa_get_info_alt hsa_isa_get_exception_policies hsa_isa_get_round_method
hsa_wavefront_get_info hsa_isa_iterate_wavefronts hsa_code_object_reader_create_from_file
hsa_code_object_reader_create_from_memory hsa_code_object_reader_destroy
hsa_executable_create_alt hsa_executable_load_program_code_object
hsa_executable_load_agent_code_object hsa_executable_validate_alt
hsa_executable_get_symbol_by_name hsa_executable_iterate_agent_symbols
hsa_executable_iterate_program_symbols hsa_code_object_get_symbol_from_name
hsa_amd_pointer_info hsa_amd_pointer_info_set_userdata hsa_amd_ipc_memory_create
hsa_amd_ipc_memory_attach hsa_amd_ipc_memory_detach hsa_ext_image_get_capability_with_layout
hsa_ext_image_data_get_info_with_layout hsa_ext_image_create_with_layout hsa_amd_signal_create
hsa_amd_ipc_signal_create hsa_amd_ipc_signal_attach hsa_ven_amd_aqlprofile_validate_event
hsa_ven_amd_aqlprofile_start hsa_ven_amd_aqlprofile_stop hsa_ven_amd_aqlprofile_legacy_get_pm4
hsa_ven_amd_aqlprofile_get_info hsa_ven_amd_aqlprofile_iterate_data
hsa_ven_amd_aqlprofile_error_string hsa_ven_amd_loader_query_segment_descriptors
hsa_ven_amd_loader_query_host_address hsa_ven_amd_loader_query_executable
hsa_ven_amd_loader_executable_iterate_loaded_code_objects
hsa_ven_amd_loader_loaded_code_object_get_info Init Unload hsa_amd_queue_set_priority
hsa_ven_amd_aqlprofile_version_major hsa_ven_amd_aqlprofile_version_minor
hsa_ven_amd_aqlprofile_read hsa_amd_memory_async_copy_rect
""".split()

INT_KINDS = {
    "uint8_t": "u8", "uint16_t": "u16", "uint32_t": "u32", "uint64_t": "u64", "size_t": "u64",
    "int8_t": "i8", "int16_t": "i16", "int32_t": "i32", "int64_t": "i64", "int": "i32",
    "unsigned": "u32", "unsigned int": "u32", "uintptr_t": "u64", "bool": "bool",
}


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return "\n".join(l for l in text.split("\n") if not l.lstrip().startswith("#"))


def read(inc, name):
    with open(os.path.join(inc, name), encoding="utf-8") as f:
        return strip_comments(f.read())


def table_slots(trace_h, struct):
    body = re.search(r"struct\s+%s\s*\{(.*?)\};" % struct, trace_h, re.S).group(1)
    return re.findall(r"decltype\((\w+)\)\s*\*\s*(\w+)_fn\s*;", body)


def parse_enums(text, enums, aliases):
    for body, name in re.findall(r"typedef\s+enum\s*\w*\s*\{(.*?)\}\s*(\w+)\s*;", text, re.S):
        enums.setdefault(name, []).extend(enum_values(body, enums))
    for body in re.findall(r"(?<!typedef )\benum\s*\{(.*?)\}\s*;", text, re.S):
        values = enum_values(body, enums)
        if values and values[0][0].startswith("HSA_STATUS_"):
            enums.setdefault("hsa_status_t", []).extend(values)
    # setdefault: the first typedef wins (hsa.h declares the 64-bit model's first).
    for base, name in re.findall(r"typedef\s+(u?int\d+_t|int)\s+(\w+)\s*;", text):
        aliases.setdefault(name, base)
    for name in re.findall(r"typedef\s+[\w\s\*]+\(\s*\*\s*(\w+)\s*\)\s*\(", text):
        aliases.setdefault(name, "fn")
    for name in re.findall(r"typedef\s+struct\s+\w*\s*\{\s*uint64_t\s+handle\s*;\s*\}\s*(\w+)\s*;",
                           text):
        aliases[name] = "handle"


def enum_values(body, enums):
    known = {n: v for values in enums.values() for n, v in values}
    out, nxt = [], 0
    for item in [i.strip() for i in body.split(",") if i.strip()]:
        name, _, expr = item.partition("=")
        name = name.strip()
        if expr.strip():
            expr = re.sub(r"(\d)[uUlL]+\b", r"\1", expr.strip())
            nxt = eval(expr, {}, dict(known, **dict(out)))  # header constants only
        out.append((name, nxt))
        nxt += 1
    return out


def prototypes(text):
    protos = {}
    for m in re.finditer(r"\b(hsa_\w+)\s*\(", text):
        name = m.group(1)
        head = text[:m.start()]
        cut = max(head.rfind(";"), head.rfind("}"), head.rfind("{"), head.rfind(")"))
        ret = head[cut + 1:]
        if "typedef" in ret or "decltype" in ret or not ret.strip():
            continue
        ret = re.sub(r"\bHSA_API\b|\bHSA_DEPRECATED\b|\bextern\b|\"C\"", " ", ret)
        depth, i = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        if name not in protos:
            protos[name] = (" ".join(ret.split()), text[m.end():i - 1])
    return protos


def split_params(params):
    out, depth, cur = [], 0, ""
    for c in params:
        if c == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += {"(": 1, ")": -1}.get(c, 0)
        cur += c
    out.append(cur)
    return [" ".join(p.split()) for p in out if p.strip() and p.strip() != "void"]


def param_name_type(param):
    fn = re.search(r"\(\s*\*\s*(\w+)\s*\)", param)
    if fn:
        return fn.group(1), "fn"
    m = re.match(r"(.*?)(\w+)\s*(\[\s*\d*\s*\])?$", param)
    ctype = m.group(1).replace(" *", "*").strip() + ("*" if m.group(3) else "")
    return m.group(2), " ".join(ctype.split())


def kind_of(ctype, enums, aliases):
    if ctype == "fn":
        return "fn"
    base = ctype.replace("const ", "").replace(" ", "")
    stars = base.count("*")
    core = base.rstrip("*")
    const = ctype.startswith("const ")
    if stars == 0:
        return value_kind(core, enums, aliases)
    if core == "char" and const:
        return "str"
    if core == "hsa_queue_t":
        return "queue" if stars == 1 else "queue_out"
    if stars == 1 and not const and core != "void":
        inner = value_kind(core, enums, aliases)
        if inner != "raw":
            return "out:" + inner
    return "ptr"


def value_kind(core, enums, aliases):
    if core in ("hsa_agent_t", "hsa_signal_t", "hsa_status_t"):
        return core[4:-2]
    if core in enums:
        return "enum:" + core
    core = aliases.get(core, core)
    if core in ("handle", "fn"):
        return core
    if core == "hsa_signal_value_t":
        return "i64"
    return INT_KINDS.get(core, "raw")


def generate(inc):
    trace_h = read(inc, "hsa_api_trace.h")
    texts = [read(inc, n) for n in ("hsa.h", "hsa_ext_amd.h", "hsa_ext_image.h",
                                    "hsa_ext_finalize.h", "hsa_ven_amd_loader.h")] + [trace_h]
    enums, aliases, protos = {}, {"hsa_signal_value_t": "int64_t"}, {}
    for t in texts:
        parse_enums(t, enums, aliases)
        for k, v in prototypes(t).items():
            protos.setdefault(k, v)
    used_enums, lines = set(), []
    slot = 0
    for table, struct in (("Core", "CoreApiTable"), ("AmdExt", "AmdExtTable")):
        lines.append("// %s slots, in table order." % struct)
        for decl, field in table_slots(trace_h, struct):
            ret, params = protos[decl]
            ret_kind = "void" if ret == "void" else kind_of(ret, enums, aliases)
            kinds = []
            for p in split_params(params):
                pname, ctype = param_name_type(p)
                k = kind_of(ctype, enums, aliases)
                if k.replace("out:", "").startswith("enum:"):
                    used_enums.add(k.split("enum:")[1])
                kinds.append("%s:%s" % (pname, k))
            api_id = API_TYPES.index(field) if field in API_TYPES else -1
            lines.append('PM_HSA_API(%d, %s, %d, %s, "%s", "%s")'
                         % (slot, table, api_id, field, ret_kind, ";".join(kinds)))
            slot += 1
    lines.append("")
    lines.append("// HSA_API_Type ids of the trace format.")
    lines += ["PM_HSA_API_TYPE(%d, %s)" % (i, n) for i, n in enumerate(API_TYPES)]
    lines.append("")
    lines.append("// Enum constants of the parameters above (and hsa_status_t for return values).")
    used_enums.add("hsa_status_t")
    for e in sorted(used_enums):
        seen = set()
        for n, v in enums[e]:
            if v not in seen:
                seen.add(v)
                lines.append("PM_HSA_ENUM(%s, %d, %s)" % (e, v, n))
    return HEADER + "\n".join(lines) + FOOTER


HEADER = """// GENERATED FILE - do not edit.
// Generated by scripts/gen_hsa_api_table.py from the ROCm runtime headers (hsa_api_trace.h:
// CoreApiTable, AmdExtTable; prototypes and enums of hsa.h, hsa_ext_amd.h) and the
// HSA_API_Type ids of the .atp trace format.
// Regenerate: python3 scripts/gen_hsa_api_table.py [include-dir]
// Check:      python3 scripts/gen_hsa_api_table.py [include-dir] --check
//
//   PM_HSA_API(slot, Table, apiTypeId, name, "retKind", "param:kind;...")
//   PM_HSA_API_TYPE(apiTypeId, name)
//   PM_HSA_ENUM(type, value, NAME)
//
// Kinds: u8..u64, i8..i64, bool, status, agent, signal, handle (a {uint64_t handle} struct),
// enum:<type>, str (const char*), fn (callback), ptr, queue (hsa_queue_t*), queue_out
// (hsa_queue_t**), out:<kind> (a pointer to a value of <kind>, read after the call), raw.

#ifndef PM_HSA_API
#define PM_HSA_API(...)
#endif
#ifndef PM_HSA_API_TYPE
#define PM_HSA_API_TYPE(...)
#endif
#ifndef PM_HSA_ENUM
#define PM_HSA_ENUM(...)
#endif

"""

FOOTER = """

#undef PM_HSA_API
#undef PM_HSA_API_TYPE
#undef PM_HSA_ENUM
"""


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    inc = args[0] if args else "/usr/include/hsa"
    text = generate(inc)
    if "--check" in sys.argv:
        with open(OUT, encoding="utf-8") as f:
            if f.read() != text:
                print("src/api/hsa_api_table.inc is out of date: run " + sys.argv[0])
                return 1
        return 0
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
