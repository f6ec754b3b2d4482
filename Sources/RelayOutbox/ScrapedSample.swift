/// A value read at scrape time from what a part of the relay keeps in memory (a Kafka consumer's lag, the
/// API listener's connections), not kept by ``RelayMetrics``: rendered after its own series.
public struct ScrapedSample: Sendable {
    public enum Kind: String, Sendable {
        case gauge, counter
    }

    public var name: String
    public var help: String
    public var kind: Kind
    public var labels: [(String, String)]
    public var value: Double

    public init(_ name: String, _ kind: Kind, help: String, labels: [(String, String)] = [], value: Double) {
        self.name = name
        self.help = help
        self.kind = kind
        self.labels = labels
        self.value = value
    }
}
