import RelayHTTP
import RelayOutbox

extension HTTPServerStatistics {
    /// The API listener's connections for `/metrics`: open now and the most it serves at once (gauges), and
    /// those it closed itself, by `reason` (a counter, every ``RelayHTTP/ConnectionClosure`` present from the
    /// start). None of them is logged: a stranger's flood would be a line per connection.
    var samples: [ScrapedSample] {
        [
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
            + ConnectionClosure.allCases.map { reason in
                ScrapedSample(
                    "pushrelay_http_connections_closed_total",
                    .counter,
                    help: "Connections the API's listener closed itself (idle, or before their answer), by reason.",
                    labels: [("reason", reason.rawValue)],
                    value: Double(closed(reason))
                )
            }
    }
}
