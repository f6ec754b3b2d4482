import Foundation
import RelayAPNs
import RelayCore
import RelayFCM
import RelayOutbox
import RelayStore
import RelayWebPush
import Testing

/// Nothing from outside the relay adds a metric series: every label takes values from a closed set.
@Suite struct ClosedLabelsTests {
    @Test func madeUpMethodsAppsAndReasonsShareOneSeriesEach() {
        let metrics = RelayMetrics(appIds: ["app0"])
        metrics.recordRequest(route: "unmatched", method: "GET", status: 404)
        let one = metrics.render()
        for index in 0..<3000 {
            metrics.recordRequest(
                route: "unmatched",
                method: "M\(index)\(String(repeating: "Z", count: 40))",
                status: 501
            )
            metrics.recordOutcome("failed", reason: "Made-up \(index)", app: "stranger\(index)", platform: .ios)
        }
        metrics.recordRequest(route: "unmatched", method: "GET", status: 999)
        metrics.recordOutcome("retry", reason: "HTTP 503", app: "app0", platform: .android)
        metrics.recordOutcome("retry", reason: "HTTP 50345", app: "app0", platform: .android)
        // A Web Push endpoint's server may answer any status: past those push services answer, its class.
        for status in 200...599 where ![201, 503].contains(status) {
            metrics.recordOutcome("retry", reason: "HTTP \(status)", app: "app0", platform: .web)
        }
        let text = metrics.render()
        let samples = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(samples.contains(#"pushrelay_http_requests_total{route="unmatched",method="other",status="501"} 3000"#))
        #expect(samples.contains(#"pushrelay_http_requests_total{route="unmatched",method="GET",status="other"} 1"#))
        #expect(
            samples.contains(
                #"pushrelay_notifications_total{app="none",platform="ios",outcome="failed",reason="other"} 3000"#
            )
        )
        #expect(
            samples.contains(
                #"pushrelay_notifications_total{app="app0",platform="android",outcome="retry",reason="HTTP 503"} 1"#
            )
        )
        #expect(
            samples.contains(
                #"pushrelay_notifications_total{app="app0",platform="android",outcome="retry",reason="other"} 1"#
            )
        )
        #expect(
            samples.contains(
                #"pushrelay_notifications_total{app="app0",platform="web",outcome="retry",reason="HTTP 5xx"} 96"#
            )
        )
        #expect(!text.contains("stranger") && !text.contains("Made-up") && !text.contains("ZZZ"))
        // 6,000 made-up values and 398 statuses later, a few lines more than one request made: the
        // statuses push services answer and a line per class.
        #expect(samples.count - one.split(separator: "\n").filter { !$0.hasPrefix("#") }.count <= 5 + 15)
    }

    /// Each push service's reasons (its transport's `reasons`) and the relay's own keep their names; another
    /// service's reason is not taken unless its transport is there.
    @Test func knownReasonsKeepTheirNames() {
        let reasons = APNsTransport.reasons.union(FCMTransport.reasons).union(WebPushTransport.reasons)
        let metrics = RelayMetrics(appIds: ["app0"], reasons: reasons)
        let known = [
            "BadDeviceToken", "Unregistered", "UNREGISTERED", "NOT_FOUND", "Gone", "OriginPaused", "NonPublicAddress",
            "transport", "Expired", "none",
        ]
        for reason in known { metrics.recordOutcome("failed", reason: reason, app: "app0", platform: .ios) }
        let text = metrics.render()
        for reason in known { #expect(text.contains("reason=\"\(reason)\"} 1"), "\(reason)") }
        #expect(!text.contains("reason=\"other\""))

        let apnsOnly = RelayMetrics(appIds: ["app0"], reasons: APNsTransport.reasons)
        apnsOnly.recordOutcome("failed", reason: "UNREGISTERED", app: "app0", platform: .android)
        #expect(apnsOnly.render().contains(#"platform="android",outcome="failed",reason="other"} 1"#))
    }

    @Test func dittoEventsAreCountedByAppCollectionKindAndOutcome() {
        let metrics = RelayMetrics(appIds: ["chat"])
        var counts = DittoApplyCounts()
        counts.outcomes = ["messages": [.notified: 2, .tooOld: 1], "someone's-collection": [.ignored: 4]]
        metrics.recordDittoEvents(counts, app: "chat")
        metrics.recordDittoEvents(counts, app: "stranger")
        let samples = metrics.render().split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(
            samples.contains(#"pushrelay_ditto_events_total{app="chat",collection="messages",outcome="notified"} 2"#)
        )
        #expect(samples.contains(#"pushrelay_ditto_events_total{app="chat",collection="other",outcome="ignored"} 4"#))
        #expect(
            samples.contains(#"pushrelay_ditto_events_total{app="none",collection="messages",outcome="too_old"} 1"#)
        )
    }
}
