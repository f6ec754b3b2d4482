import CMicroHTTPD
import Foundation

/// Owns one running libmicrohttpd daemon and stops it in `deinit`.
///
/// `@unchecked Sendable`: `raw` never changes; `quiesce()` and `stop()` are only called by ``HTTPServer``,
/// which takes the daemon out of its locked state first, so each runs once on one task.
final class MHDDaemon: @unchecked Sendable {
    let raw: OpaquePointer
    /// The callbacks' target; kept alive as long as the daemon can call it.
    let core: ServerCore
    private var quiescedSocket: Int32 = -1
    private var stopped = false
    init(raw: OpaquePointer, core: ServerCore) {
        self.raw = raw
        self.core = core
        core.connections.startSweeping()
    }

    /// Stops accepting connections (`MHD_quiesce_daemon`); open connections keep being served.
    func quiesce() {
        guard quiescedSocket < 0, !stopped else { return }
        quiescedSocket = Int32(MHD_quiesce_daemon(raw))
    }

    /// Stops the connection sweeper, resumes every suspended connection with 503, then `MHD_stop_daemon` (closes
    /// every connection and joins libmicrohttpd's threads) and closes a quiesced listen socket. Idempotent.
    func stop() {
        guard !stopped else { return }
        stopped = true
        core.connections.stopSweeping()
        core.resumeAllSuspended()
        MHD_stop_daemon(raw)
        if quiescedSocket >= 0 {
            close(quiescedSocket)
            quiescedSocket = -1
        }
    }

    deinit { stop() }
}
