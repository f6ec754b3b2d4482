import Foundation
import RelayCore

/// A serial executor that runs every job on one dedicated thread, so the blocking database calls of the
/// actor that uses it (SQLiteStore, PostgresStore) never occupy a thread of Swift's cooperative pool.
///
/// Why a dedicated `Thread` rather than a `DispatchQueue`: a blocked job (a write waiting on the busy
/// timeout, a 100,000-row insert) then holds exactly this one thread, visibly named in a debugger, and
/// nothing else; the thread lives as long as the store and stops in ``shutdown()``.
package final class StoreThreadExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs` and `stopped` are only touched with `condition` locked; `thread` is set
    // once in init.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false
    private var threadId: pthread_t?

    /// Starts the thread, named `name` (Linux keeps the first 15 bytes of a thread name).
    package init(name: String) {
        let thread = Thread { [self] in
            ThreadName.setForThisThread(name)
            run()
        }
        thread.start()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    package func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets the thread finish the queued jobs and exit. The executor is freed when the thread has exited.
    package func shutdown() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    /// True when called on the executor's thread.
    package var isCurrent: Bool {
        condition.lock()
        defer { condition.unlock() }
        return threadId.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    private func run() {
        condition.lock()
        threadId = pthread_self()
        condition.unlock()
        var batch: [UnownedJob] = []
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            swap(&batch, &jobs)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedSerialExecutor()) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
