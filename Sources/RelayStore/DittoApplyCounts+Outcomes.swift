import RelayCore

extension DittoApplyCounts {
    /// Adds one event's outcome: to the answer's counts and to the outcomes of its collection kind.
    mutating func count(_ outcome: DittoEventOutcome, kind: DittoCollections.Kind?) {
        switch outcome {
        case .applied: applied += 1
        case .notified:
            applied += 1
            notifications += 1
        case .duplicate: duplicates += 1
        case .ignored, .tooOld, .editOrDelete, .invalid, .lost: ignored += 1
        }
        outcomes[kind.map { "\($0)" } ?? "other", default: [:]][outcome, default: 0] += 1
    }
}
