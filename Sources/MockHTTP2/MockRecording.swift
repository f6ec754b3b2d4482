/// Where a mock's answered requests go: the ``RequestLog`` (counts, the last ones in memory, waiters), the
/// record file, and the callbacks for accepted and refused ones.
struct MockRecording<Record: Sendable & Encodable>: Sendable {
    let log: RequestLog<Record>
    let keepInMemory: Bool
    let file: RecordFileWriter?
    let onAccepted: (@Sendable (Record) -> Void)?
    let onRefused: (@Sendable (Record) -> Void)?

    /// Counts one answered request; makes its record only when something keeps or hears of it (benchmarks
    /// record nothing, so memory stays flat).
    func record(accepted: Bool, _ makeRecord: () -> Record) {
        let hears = accepted ? onAccepted : onRefused
        guard keepInMemory || file != nil || hears != nil else {
            log.record(nil)
            return
        }
        let record = makeRecord()
        file?.write(record)
        log.record(record)
        hears?(record)
    }
}
