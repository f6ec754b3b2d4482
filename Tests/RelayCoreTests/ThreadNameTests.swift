import Foundation
import RelayCore
import Testing

@Suite struct ThreadNameTests {
    /// A thread started from a pool thread, named at once from inside, shows the name to the OS (cut to 15
    /// bytes), as `top -H` reads it from /proc; Foundation's setter left some of them with their creator's.
    @Test func aNewThreadShowsItsNameAtOnce() async throws {
        for _ in 0..<20 {
            let name = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
                Thread {
                    ThreadName.setForThisThread("relay-name-test-thread")
                    let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
                    continuation.resume(returning: comm.trimmingCharacters(in: .newlines))
                }.start()
            }
            #expect(name == "relay-name-test")
        }
    }
}
