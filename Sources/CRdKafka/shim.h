// Includes for librdkafka (Debian librdkafka-dev), its mock cluster, and a wrapper for the variadic
// rd_kafka_producev that Swift cannot call.
#pragma once
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

/// Produces one message (payload and key copied) to `topic`, partition `partition` (RD_KAFKA_PARTITION_UA
/// lets the partitioner choose by key).
static inline rd_kafka_resp_err_t crdkafka_produce(rd_kafka_t *_Nonnull rk, const char *_Nonnull topic,
                                                   int32_t partition, const void *_Nullable payload, size_t length,
                                                   const void *_Nullable key, size_t keyLength) {
    return rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(partition),
                             RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_VALUE((void *)payload, length),
                             RD_KAFKA_V_KEY((void *)key, keyLength), RD_KAFKA_V_END);
}

/// RD_KAFKA_PARTITION_UA, a macro Swift does not import.
static inline int32_t crdkafka_partition_unassigned(void) { return RD_KAFKA_PARTITION_UA; }
