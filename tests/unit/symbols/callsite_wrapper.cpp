// The C++ side of the call-site test library (tests/unit/symbols): a call through a C++ wrapper
// class template, whose name the symbolizer gives demangled.
namespace pmtest {

using Callee = void* (*)();

template <typename T>
struct Queue {
    void* enqueue(Callee callee) {
        return callee();  // SITE wrapper
    }
};

}  // namespace pmtest

extern "C" void* pm_wrapper_site(pmtest::Callee callee) {
    pmtest::Queue<int> queue;
    return queue.enqueue(callee);
}
