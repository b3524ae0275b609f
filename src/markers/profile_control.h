// amdtStopProfiling/amdtResumeProfiling: find the tracing agents loaded in this process and
// call their pause/resume entry points (docs/session.md#pause-and-resume).
#pragma once

namespace perfmarker::markers {

// Library names searched for each profiling kind (flag values of amdtProfilingControlMode).
struct AgentLibrary {
    int mode;
    const char* soname;
};

// Returns an AL_* code: AL_SUCCESS, AL_WARN_PROFILE_ALREADY_PAUSED/RESUMED, or
// AL_FAILED_TO_ATTACH_TO_PROFILER when no agent for `mode` is loaded.
int controlProfiling(int mode, bool pause);

}  // namespace perfmarker::markers
