/// The faults bound to one connection under a script: its `"all"` and index rules, then the `"next"` rule it
/// took when accepted; later rules override earlier ones, refused ordinals add up.
struct ConnectionFaults {
    var goAway: MockConnectionRule.GoAway?
    var streamLimit: MockConnectionRule.StreamLimit?
    var refuse: Set<Int> = []
    var dropAfterRequests: Int?

    init() {}

    init(rules: [MockConnectionRule], connectionId: Int, nextRule: MockConnectionRule?) {
        let selected = rules.filter { $0.connection == .all || $0.connection == .index(connectionId) }
        for rule in selected + (nextRule.map { [$0] } ?? []) {
            if let goAway = rule.goAway { self.goAway = goAway }
            if let limit = rule.maxConcurrentStreams { streamLimit = limit }
            refuse.formUnion(rule.refuseRequests ?? [])
            if let drop = rule.dropAfterRequests { dropAfterRequests = drop }
        }
    }

    /// The `"next"` rule the connection accepted `ordinal`-th since the script was set takes (0 first), if any.
    static func nextRule(in rules: [MockConnectionRule], ordinal: Int) -> MockConnectionRule? {
        let nextRules = rules.filter { $0.connection == .next }
        return ordinal < nextRules.count ? nextRules[ordinal] : nil
    }
}
