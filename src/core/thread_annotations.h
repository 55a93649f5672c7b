// Clang's thread-safety annotations, so that which mutex guards which
// member is written where the compiler can check it (`make tidy` runs
// clang with -Wthread-safety), not only in comments. Under GCC they
// compile to nothing. Names follow Clang's documentation
// (https://clang.llvm.org/docs/ThreadSafetyAnalysis.html).
#pragma once

#if defined(__clang__)
#define ZEST_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define ZEST_THREAD_ANNOTATION(x)
#endif

// A type that is a lock (zest::Mutex).
#define CAPABILITY(name) ZEST_THREAD_ANNOTATION(capability(name))
// An RAII holder of a lock (zest::MutexLock).
#define SCOPED_CAPABILITY ZEST_THREAD_ANNOTATION(scoped_lockable)
// The member may be read or written only with `mutex` held.
#define GUARDED_BY(mutex) ZEST_THREAD_ANNOTATION(guarded_by(mutex))
// What the pointer points to may be used only with `mutex` held.
#define PT_GUARDED_BY(mutex) ZEST_THREAD_ANNOTATION(pt_guarded_by(mutex))
// The function must be called with the lock(s) held ("...Locked" methods).
#define REQUIRES(...) ZEST_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
// The function must be called without the lock(s) held (it takes them).
#define EXCLUDES(...) ZEST_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define ACQUIRE(...) ZEST_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define RELEASE(...) ZEST_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) ZEST_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
// For the rare function the analysis cannot follow; say why beside it.
#define NO_THREAD_SAFETY_ANALYSIS ZEST_THREAD_ANNOTATION(no_thread_safety_analysis)
