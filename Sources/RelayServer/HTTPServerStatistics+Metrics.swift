import RelayHTTP
import RelayOutbox

extension HTTPServerStatistics {
    /// The API listener's connections for `/metrics`: open now and the most it serves at once (gauges), and
    /// those it closed itself, by `reason` (a counter, every reason present from the start): a keep-alive
    /// connection idle since its last answer (`idle`, a client's pool as much as anything), at the header or
    /// body deadline, for a body or an answer slower than the minimum rate, at accept over the per-address or
    /// per-range cap, or dropped unfinished to make room (`shed`). None of them is logged: a stranger's flood
    /// would be a line per connection.
    var samples: [ScrapedSample] {
        let closed = [
            ("idle", closedIdle), ("header_deadline", closedAtHeaderDeadline), ("body_deadline", closedAtBodyDeadline),
            ("slow_body", closedForSlowBody), ("slow_answer", closedForSlowAnswer),
            ("address_cap", refusedOverAddressCap), ("prefix_cap", refusedOverPrefixCap), ("shed", shed),
        ]
        return [
            ScrapedSample(
                "pushrelay_http_connections_open",
                .gauge,
                help: "Connections open on the API's listener.",
                value: Double(openConnections)
            ),
            ScrapedSample(
                "pushrelay_http_connection_limit",
                .gauge,
                help: "Most connections the API's listener serves at once (http.maxConnections as the open-file "
                    + "limit allows it).",
                value: Double(connectionLimit)
            ),
        ]
            + closed.map { reason, count in
                ScrapedSample(
                    "pushrelay_http_connections_closed_total",
                    .counter,
                    help: "Connections the API's listener closed itself (idle, or before their answer), by reason.",
                    labels: [("reason", reason)],
                    value: Double(count)
                )
            }
    }
}
