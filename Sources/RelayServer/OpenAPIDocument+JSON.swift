// swift-format-ignore-file
// Generated from docs/openapi.yaml by scripts/openapi-json.py (`make openapi`); do not edit.

extension OpenAPIDocument {
    /// docs/openapi.yaml as JSON text.
    static let jsonText = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "PushRelay API",
    "version": "1.0.0",
    "summary": "Registers APNs device tokens and FCM registration tokens and fans chat messages out to them over APNs and FCM.",
    "description": "Every `/v1` call carries `Authorization: Bearer <credential>`, and no call can see or touch another\napp's devices, rooms or notifications. The credential is either the app's API key (its backend: every\ncall within the app; the key selects the app) or, with `X-PushRelay-App: <app id>`, a user credential\nthe app's `userAuth` verifies (a JWT, or a token its Ditto auth webhook accepts): the user may then do\nonly what concerns itself: register, list and delete its own devices, join open rooms, set its own\nnotification levels (per room it is in, and its default) and leave any room it is in as itself, mark\nits rooms read and read its unread counts, send webhooks as itself to rooms it is a member of, and read the\nnotifications it sent. A refusal is 403 with its own code and changes nothing (another user's device or\nnotification is 404, as an unknown one); a user over one of its app's limits, or a client address with\ntoo many user-credential checks in flight or failed, gets 429 `rate_limited` with `Retry-After`. Request bodies are JSON (`Content-Type`\n`application/json` or `*/*+json`, or none) of at most 64 KiB (`http.maxBodyBytes`).\n\nEvery error is `{\"error\":{\"code\":\"snake_case\",\"message\":\"...\"}}` with `Content-Type: application/json`.\nBesides the answers listed per operation:\n- a method no path serves (anything but GET, HEAD, POST, PUT and DELETE) answers 501\n  `method_not_implemented` before anything else is looked at;\n- a known path with a method it does not serve answers 405 `method_not_allowed` with `Allow`\n  (components/responses/MethodNotAllowed); `HEAD` is served wherever `GET` is;\n- an unknown path answers 404 `not_found`;\n- a header field name that is not a token (white space before its colon), a field value with a\n  control character other than HTAB (NUL, a bare CR), a folded field (obs-fold), a header line ended\n  by a bare LF, or a Content-Length that is not digits answers 400 `malformed_header`, a request target that is not a path 400 `invalid_target`, an HTTP/1.1 request\n  without `Host` 400 `missing_host`, one with two Host or Authorization headers, differing\n  Content-Length values or Content-Length beside Transfer-Encoding 400 `conflicting_headers`, and a\n  Transfer-Encoding other than chunked 501 `unsupported_transfer_encoding`;\n- a body over the limit answers 413 `payload_too_large` on any path;\n- every answer of the two items above, the 501s and what the HTTP library refuses by itself (a header\n  line without a colon, 414, 431, 505) carry `Connection: close` and close the connection: nothing sent\n  after such a request is read;\n- while the relay shuts down, requests it can no longer finish answer 503 `unavailable`;\n- while its storage is unavailable (disk full, I/O error, locked, read-only, database unreachable or\n  frozen: no database connection free within `storage.requestDeadlineMilliseconds` of the request's\n  arrival), a call answers 503 `storage_unavailable` with `Retry-After` and records nothing.\n\nEvery answer carries `X-Request-Id` (the client's own when it is 1...128 characters of\n`A-Za-z0-9-_.:`, else 32 lowercase hex characters).\n\ndocs/openapi.yaml is the source; its JSON form, served at `/openapi.json`, is generated into\nSources/RelayServer/OpenAPIDocument+JSON.swift by `make openapi`.\n"
  },
  "servers": [
    {
      "url": "http://127.0.0.1:8080",
      "description": "`make run`"
    }
  ],
  "security": [
    {
      "bearerAuth": []
    },
    {
      "bearerAuth": [],
      "appHeader": []
    }
  ],
  "tags": [
    {
      "name": "devices"
    },
    {
      "name": "rooms"
    },
    {
      "name": "users"
    },
    {
      "name": "webhooks"
    },
    {
      "name": "notifications"
    },
    {
      "name": "ditto"
    },
    {
      "name": "operations"
    }
  ],
  "paths": {
    "/healthz": {
      "get": {
        "tags": [
          "operations"
        ],
        "operationId": "getHealth",
        "summary": "Liveness; answers as long as the process serves HTTP.",
        "security": [],
        "responses": {
          "200": {
            "description": "Alive.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "status"
                  ],
                  "properties": {
                    "status": {
                      "const": "ok"
                    }
                  }
                }
              }
            }
          }
        }
      }
    },
    "/readyz": {
      "get": {
        "tags": [
          "operations"
        ],
        "operationId": "getReadiness",
        "summary": "Readiness (the storage takes a write), with the apps' push endpoints summed up.",
        "description": "Ready while the storage takes a write. Answered from state background probes keep (storage every\nsecond, `unavailable (timeout)` when a probe takes over 2 s; endpoints every 10 s), never waiting on\nthe storage, whatever the number of calls. The apps' push endpoints are probed too; here `checks` has `storage` and `push` (`ok`, or\n`N of M failing`) and names no app: the admin listener (`http.admin`) answers the same path with a\ncheck per app (`apns:<appId>`, `fcm:<appId>`, and `ditto:<appId>` for an app with `apps[].ditto`:\n`ok`, or `degraded (…)` while a `requeryRequired` waits for its re-read), and `provider:<appId>` while\na push service refuses the app's credentials and its sends are paused (`paused (InvalidProviderToken:\nios production)`). An endpoint that cannot be reached, or a paused app, does not make the relay\nunavailable (its pushes wait in the outbox while other apps' go out).\n",
        "security": [],
        "responses": {
          "200": {
            "description": "Ready; the storage check is `ok` (`push` says `ok` or how many endpoints failed).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Readiness"
                }
              }
            }
          },
          "503": {
            "description": "Not ready; the storage takes no write, and its check's value says why.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Readiness"
                }
              }
            }
          }
        }
      }
    },
    "/metrics": {
      "get": {
        "tags": [
          "operations"
        ],
        "operationId": "getMetrics",
        "summary": "Prometheus metrics (text exposition format 0.0.4), on the admin listener only.",
        "description": "The metrics name the apps, so they are served on the admin listener (`http.admin.host`, `http.admin.port`, on by default at 127.0.0.1:8081) only; the API's listener answers 404 `not_found`. Rendered from memory, never waiting on the storage; every metric and its labels are listed in docs/metrics.md.",
        "security": [],
        "responses": {
          "200": {
            "description": "The metrics (admin listener).",
            "content": {
              "text/plain": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "404": {
            "description": "The API's listener; the metrics are on the admin listener.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/openapi.json": {
      "get": {
        "tags": [
          "operations"
        ],
        "operationId": "getOpenAPIDocument",
        "summary": "This document, as JSON.",
        "security": [],
        "responses": {
          "200": {
            "description": "The OpenAPI document.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "openapi",
                    "info",
                    "paths"
                  ]
                }
              }
            }
          }
        }
      }
    },
    "/v1/devices": {
      "post": {
        "tags": [
          "devices"
        ],
        "operationId": "registerDevice",
        "summary": "Registers a device's push token for a user (and optionally puts the user in rooms).",
        "description": "`platform` says which service reaches the device: `ios` (APNs, the default), `android` (FCM) or\n`web` (a browser's push service, Web Push).\nRegistering a token again updates its user, platform and environment; a retired token is revived.\nAn APNs device token is normalized to lowercase hex: uppercase, whitespace and the\n`<ce8be627 2e43e855 …>` form are accepted; iOS 13's `{length = 32, bytes = 0x… }` and `32 bytes`\nare refused with 400 `invalid_device_token`. An FCM registration token is taken exactly as given\n(letters, digits, `-`, `_` and `:`, 32 to 1024 characters). An android device has no\n`environment` (400 `invalid_field` when one is given), and needs the app's FCM settings (422\n`platform_not_configured` without them).\n\nA web device sends no `token` and no `environment` (400 `invalid_field`), but its `subscription`\nas the browser's `PushSubscription.toJSON()` gives it; its token is derived from the endpoint\n(`web-` and the base64url SHA-256 of the endpoint) and is what the answer, DELETE,\n`senderDeviceToken` and dead tokens name. The endpoint must be https (plain http only at the app's\nmock push service, `apps[].webPush.mock`); `p256dh` must be a P-256 point and `auth` 16 bytes\n(base64url, padding tolerated); any problem is 400 `invalid_subscription` naming the field. The\nkeys and the endpoint are never shown. Registering the same endpoint again replaces its keys. It\nneeds the app's Web Push settings (422 `platform_not_configured` without them).\n",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/DeviceRegistration"
              },
              "example": {
                "token": "ce8be6272e43e8554a5d1ed0ab0a6d2ce4b4ce1a2ed1f6ae3b9a2c6a94f1e2d3",
                "userId": "alice",
                "environment": "sandbox",
                "rooms": [
                  "general"
                ]
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "The token was known (to a user, its own); updated.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Device"
                }
              }
            },
            "links": {
              "DeleteDevice": {
                "$ref": "#/components/links/DeleteDevice"
              },
              "ListUserDevices": {
                "$ref": "#/components/links/ListUserDevices"
              }
            }
          },
          "201": {
            "description": "A new device; to a user, also a token another user had, which moves to it (`createdAt` is then the time of the move), so a user does not learn which tokens are registered.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Device"
                }
              }
            },
            "links": {
              "DeleteDevice": {
                "$ref": "#/components/links/DeleteDevice"
              },
              "ListUserDevices": {
                "$ref": "#/components/links/ListUserDevices"
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "422": {
            "description": "`platform_not_configured`: an android device for an app without FCM settings (`apps[].fcm`), or a web device for an app without Web Push settings (`apps[].webPush`).",
            "content": {
              "application/json": {
                "schema": {
                  "allOf": [
                    {
                      "$ref": "#/components/schemas/Error"
                    },
                    {
                      "properties": {
                        "error": {
                          "properties": {
                            "code": {
                              "enum": [
                                "platform_not_configured"
                              ]
                            }
                          }
                        }
                      }
                    }
                  ]
                }
              }
            }
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "503": {
            "$ref": "#/components/responses/AuthUnavailable"
          },
          "413": {
            "$ref": "#/components/responses/PayloadTooLarge"
          },
          "415": {
            "$ref": "#/components/responses/UnsupportedMediaType"
          }
        }
      }
    },
    "/v1/devices/{token}": {
      "delete": {
        "tags": [
          "devices"
        ],
        "operationId": "deleteDevice",
        "summary": "Deletes the app's device with this token; its pending deliveries fail.",
        "parameters": [
          {
            "$ref": "#/components/parameters/Token"
          },
          {
            "name": "platform",
            "in": "query",
            "required": false,
            "description": "The token's platform. Without it a web device's token (`web-` and 43 base64url characters) is\none, a token that reads as an APNs device token is one, and any other is taken as an FCM\nregistration token.\n",
            "schema": {
              "$ref": "#/components/schemas/Platform"
            }
          }
        ],
        "responses": {
          "204": {
            "description": "Deleted."
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "503": {
            "$ref": "#/components/responses/AuthUnavailable"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        }
      }
    },
    "/v1/users/{userId}/devices": {
      "get": {
        "tags": [
          "devices"
        ],
        "operationId": "listUserDevices",
        "summary": "The user's devices (empty for an unknown user).",
        "parameters": [
          {
            "$ref": "#/components/parameters/UserId"
          }
        ],
        "responses": {
          "200": {
            "description": "The devices.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "devices"
                  ],
                  "properties": {
                    "devices": {
                      "type": "array",
                      "items": {
                        "$ref": "#/components/schemas/Device"
                      }
                    }
                  }
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "503": {
            "$ref": "#/components/responses/AuthUnavailable"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        }
      }
    },
    "/v1/users/{userId}/settings": {
      "get": {
        "tags": [
          "users"
        ],
        "operationId": "getUserSettings",
        "summary": "The user's default notification level (`all` when never set); a user reads only its own.",
        "parameters": [
          {
            "$ref": "#/components/parameters/UserId"
          }
        ],
        "responses": {
          "200": {
            "description": "The settings.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/UserSettings"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "503": {
            "$ref": "#/components/responses/AuthUnavailable"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        }
      },
      "put": {
        "tags": [
          "users"
        ],
        "operationId": "setUserSettings",
        "summary": "Sets the user's default notification level, for the rooms it set no level of its own for.",
        "description": "A user sets only its own; the API key, anyone's. Apps with a Ditto stream take it too.\n",
        "parameters": [
          {
            "$ref": "#/components/parameters/UserId"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/UserSettingsUpdate"
              },
              "example": {
                "notify": "mentions"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "The settings as stored.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/UserSettings"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "503": {
            "$ref": "#/components/responses/AuthUnavailable"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "413": {
            "$ref": "#/components/responses/PayloadTooLarge"
          },
          "415": {
            "$ref": "#/components/responses/UnsupportedMediaType"
          }
        }
      }
    },
    "/v1/users/{userId}/unread": {
      "get": {
        "tags": [
          "users"
        ],
        "operationId": "getUnread",
        "summary": "The user's unread messages, in total and by room.",
        "description": "Unread in a room = the room's messages from others, not archived, written after the user's read\nposition there (the DittoChat SDK's rule). A room without a read position (for an app with a Ditto\nstream: a `subscriptions[roomId]` that is absent, null or no date) and a room at level `none` count\nnothing. Messages older than `storage.retentionHours` no longer count. `rooms` lists only rooms with\nunread messages, the 1,000 most unread at most; `total` counts every room. A user reads only its own\n(403 `forbidden_user`); the backend anyone's.\n",
        "parameters": [
          {
            "$ref": "#/components/parameters/UserId"
          }
        ],
        "responses": {
          "200": {
            "description": "The counts.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Unread"
                },
                "example": {
                  "total": 3,
                  "rooms": {
                    "general": 2,
                    "dm-alice-bob": 1
                  }
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "503": {
            "$ref": "#/components/responses/AuthUnavailable"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        }
      }
    },
    "/v1/rooms/{roomId}/members/{userId}": {
      "put": {
        "tags": [
          "rooms"
        ],
        "operationId": "joinRoom",
        "summary": "Makes the user a member of the room (idempotent) and sets its notification level for the room.",
        "description": "With the API key the membership is the backend's, which closing the room keeps. A user joins only\nopen rooms (else 403 `room_closed`), and sets its own level (`notify`, or the deprecated `muted`) in\nany room it is a member of, closed ones too. The membership and the level change in one write; a\nbody without either only joins, keeping the level. Leaving the room (or being removed by its\nclosing) forgets the member's level for it.\n\nAn app with a Ditto stream (`apps[].ditto`) takes its members from Ditto: a body that sets a level\nis stored as the user's level for the room (whether or not Ditto has the user subscribed) and\nanswers 204; any other body (a join) is 409 `managed_by_ditto`.\n",
        "parameters": [
          {
            "$ref": "#/components/parameters/RoomId"
          },
          {
            "$ref": "#/components/parameters/UserId"
          }
        ],
        "requestBody": {
          "required": false,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/MembershipUpdate"
              },
              "example": {
                "notify": "mentions"
              }
            }
          }
        },
        "responses": {
          "204": {
            "description": "The user is a member (for an app with a stream, the level is stored)."
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "503": {
            "$ref": "#/components/responses/AuthUnavailable"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "409": {
            "$ref": "#/components/responses/ManagedByDitto"
          },
          "413": {
            "$ref": "#/components/responses/PayloadTooLarge"
          },
          "415": {
            "$ref": "#/components/responses/UnsupportedMediaType"
          }
        }
      },
      "delete": {
        "tags": [
          "rooms"
        ],
        "operationId": "leaveRoom",
        "summary": "Removes the user from the room (also when the user was not a member); a user leaves any room, closed ones too.",
        "parameters": [
          {
            "$ref": "#/components/parameters/RoomId"
          },
          {
            "$ref": "#/components/parameters/UserId"
          }
        ],
        "responses": {
          "204": {
            "description": "The user is not a member."
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "503": {
            "$ref": "#/components/responses/AuthUnavailable"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "409": {
            "$ref": "#/components/responses/ManagedByDitto"
          }
        }
      }
    },
    "/v1/rooms/{roomId}/read/{userId}": {
      "put": {
        "tags": [
          "rooms"
        ],
        "operationId": "markRoomRead",
        "summary": "Moves the member's read position of the room forward to `at`.",
        "description": "A member's position starts at its join and only moves forward: an earlier `at` changes nothing, and\nan `at` after the relay's clock counts as now. The answer is the position kept. A user marks only\nits own (403 `forbidden_user`); the backend anyone's. An app with a Ditto stream (`apps[].ditto`)\ntakes positions from Ditto's `subscriptions` and is answered 409 `managed_by_ditto`.\n",
        "parameters": [
          {
            "$ref": "#/components/parameters/RoomId"
          },
          {
            "$ref": "#/components/parameters/UserId"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/ReadMarker"
              },
              "example": {
                "at": "2026-05-01T12:00:00.000Z"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "The position kept.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/ReadPosition"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "503": {
            "$ref": "#/components/responses/AuthUnavailable"
          },
          "404": {
            "$ref": "#/components/responses/MemberNotFound"
          },
          "409": {
            "$ref": "#/components/responses/ManagedByDitto"
          },
          "413": {
            "$ref": "#/components/responses/PayloadTooLarge"
          },
          "415": {
            "$ref": "#/components/responses/UnsupportedMediaType"
          }
        }
      }
    },
    "/v1/rooms/{roomId}/members": {
      "get": {
        "tags": [
          "rooms"
        ],
        "operationId": "listRoomMembers",
        "summary": "A page of the room's members' user ids, by user id (empty for an unknown room).",
        "description": "For an app with a Ditto stream (`apps[].ditto`) the members are the mirror's: a DM room's\n`participants`, else the users whose `subscriptions[roomId]` is set; the answer then has `source`\n`ditto`. A user reads only rooms it is a member of (else 403 `not_a_member`).\n",
        "parameters": [
          {
            "$ref": "#/components/parameters/RoomId"
          },
          {
            "name": "offset",
            "in": "query",
            "required": false,
            "description": "The position of the first member to list (0, the default, is the first by user id); the answer's `nextOffset` for the next page.",
            "schema": {
              "type": "integer",
              "minimum": 0,
              "maximum": 2147483647,
              "default": 0
            }
          },
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "description": "The most members in the page.",
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 10000,
              "default": 1000
            }
          }
        ],
        "responses": {
          "200": {
            "description": "The members.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "members"
                  ],
                  "properties": {
                    "members": {
                      "type": "array",
                      "items": {
                        "$ref": "#/components/schemas/Id"
                      }
                    },
                    "nextOffset": {
                      "type": "integer",
                      "minimum": 1,
                      "description": "The `offset` of the next page; absent on the last."
                    },
                    "source": {
                      "type": "string",
                      "enum": [
                        "ditto"
                      ],
                      "description": "`ditto`: the members are the app's Ditto mirror's; absent for the relay's own."
                    }
                  }
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "503": {
            "$ref": "#/components/responses/AuthUnavailable"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        }
      }
    },
    "/v1/rooms/{roomId}": {
      "put": {
        "tags": [
          "rooms"
        ],
        "operationId": "setRoom",
        "summary": "Sets whether the room's users join themselves (backend only); closing removes the members who joined themselves.",
        "parameters": [
          {
            "$ref": "#/components/parameters/RoomId"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/RoomSettings"
              },
              "example": {
                "membership": "closed"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "The room's setting.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Room"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "503": {
            "$ref": "#/components/responses/AuthUnavailable"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "409": {
            "$ref": "#/components/responses/ManagedByDitto"
          },
          "413": {
            "$ref": "#/components/responses/PayloadTooLarge"
          },
          "415": {
            "$ref": "#/components/responses/UnsupportedMediaType"
          }
        }
      },
      "get": {
        "tags": [
          "rooms"
        ],
        "operationId": "getRoom",
        "summary": "The room's membership rule (its own, else the app's); a user must be a member.",
        "description": "For an app with a Ditto stream (`apps[].ditto`) the room is the mirror's: `membership` `closed`\n(nobody joins through the relay), its `name`, `direct` for a DM room and `source` `ditto`; 404\n`not_found` when the mirror holds no such room. A user must be a member by Ditto's rule (a DM room's\nparticipant, else subscribed), else 403 `not_a_member`, whether or not the room exists.\n",
        "parameters": [
          {
            "$ref": "#/components/parameters/RoomId"
          }
        ],
        "responses": {
          "200": {
            "description": "The room's setting.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Room"
                }
              }
            }
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "503": {
            "$ref": "#/components/responses/AuthUnavailable"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          }
        }
      }
    },
    "/v1/webhooks/did-send-message": {
      "post": {
        "tags": [
          "webhooks"
        ],
        "operationId": "didSendMessage",
        "summary": "A text message was sent; notify the room's (or the named recipients') devices.",
        "description": "Recipients are `recipients` when given, else the room's members, each as its notification level\nfor the room admits the message (NotifyLevel; `mentions` admits a message whose `mentions` names\nthe user); a user's `recipients` whose level leaves the message out are skipped silently, the API\nkey's reach them whatever their level. Every device of the sender and\n`senderDeviceToken` are left out; each token gets the message once. The notification and one\ndelivery per device are committed before the answer. When the app has a `webhookSecret`, the\nbody must be signed (`X-PushRelay-Signature`), else 401 `invalid_signature`.\n",
        "parameters": [
          {
            "$ref": "#/components/parameters/WebhookSignature"
          },
          {
            "$ref": "#/components/parameters/IdempotencyKey"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/MessageWebhook"
              },
              "example": {
                "roomId": "general",
                "roomName": "General",
                "senderId": "alice",
                "senderName": "Alice",
                "text": "Hi Bob 👋",
                "messageId": "msg-1"
              }
            }
          }
        },
        "responses": {
          "200": {
            "$ref": "#/components/responses/WebhookRepeated"
          },
          "202": {
            "$ref": "#/components/responses/WebhookAccepted"
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "503": {
            "$ref": "#/components/responses/AuthUnavailable"
          },
          "409": {
            "$ref": "#/components/responses/MessageIdConflict"
          },
          "422": {
            "$ref": "#/components/responses/IdempotencyKeyReused"
          },
          "413": {
            "$ref": "#/components/responses/PayloadTooLarge"
          },
          "415": {
            "$ref": "#/components/responses/UnsupportedMediaType"
          }
        }
      }
    },
    "/v1/webhooks/did-send-image-message": {
      "post": {
        "tags": [
          "webhooks"
        ],
        "operationId": "didSendImageMessage",
        "summary": "An image message was sent; as did-send-message, with a caption instead of text.",
        "parameters": [
          {
            "$ref": "#/components/parameters/WebhookSignature"
          },
          {
            "$ref": "#/components/parameters/IdempotencyKey"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/ImageMessageWebhook"
              },
              "example": {
                "roomId": "general",
                "senderId": "alice",
                "senderName": "Alice",
                "caption": "Sunset",
                "imageUrl": "https://example.com/sunset.jpg",
                "messageId": "img-1"
              }
            }
          }
        },
        "responses": {
          "200": {
            "$ref": "#/components/responses/WebhookRepeated"
          },
          "202": {
            "$ref": "#/components/responses/WebhookAccepted"
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "503": {
            "$ref": "#/components/responses/AuthUnavailable"
          },
          "409": {
            "$ref": "#/components/responses/MessageIdConflict"
          },
          "422": {
            "$ref": "#/components/responses/IdempotencyKeyReused"
          },
          "413": {
            "$ref": "#/components/responses/PayloadTooLarge"
          },
          "415": {
            "$ref": "#/components/responses/UnsupportedMediaType"
          }
        }
      }
    },
    "/v1/ditto/events": {
      "post": {
        "tags": [
          "ditto"
        ],
        "operationId": "postDittoEvents",
        "summary": "Apply change events of the app's Ditto collections (a webhook data bridge, a script, a replay).",
        "description": "Authorized on the headers before the body is read: `Authorization: Bearer` with a secret whose\nSHA-256 is in an app's `apps[].ditto.ingestSecretSHA256` (that app), or with the app's API key (then,\nwhen the app has a `webhookSecret`, the body must be signed, else 401 `invalid_signature`). An app\nwithout `apps[].ditto` answers 409 `ditto_not_configured`. The body is one event, a JSON array of\nevents, or NDJSON (`Content-Type: application/x-ndjson`, one event a line), at most 1,000 events and\n`apps[].ditto.maxBodyBytes` bytes (else `http.maxBodyBytes`). Every event of the request is applied\nin one transaction; a malformed event answers 400 `invalid_event` naming its 0-based index, and\nnothing of the request is applied. A message document seen for the first time that DittoChat's\nrules push becomes one notification (`messageId` = its `_id`); the same events again change nothing.\n",
        "parameters": [
          {
            "$ref": "#/components/parameters/WebhookSignature"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "oneOf": [
                  {
                    "$ref": "#/components/schemas/DittoEvent"
                  },
                  {
                    "type": "array",
                    "maxItems": 1000,
                    "items": {
                      "$ref": "#/components/schemas/DittoEvent"
                    }
                  }
                ]
              },
              "example": {
                "txnId": 42,
                "type": "documentChanged",
                "collection": "messages",
                "change": {
                  "method": "upsert",
                  "oldValue": null,
                  "newValue": {
                    "_id": "3F2B8C1E-6A4D-4E7B-9C1A-2D5E8F0B7A64",
                    "roomId": "general",
                    "userId": "alice",
                    "text": "Hi Bob",
                    "createdOn": "2026-12-02T12:00:00.000Z"
                  }
                }
              }
            },
            "application/x-ndjson": {
              "schema": {
                "type": "string",
                "description": "One event (as application/json's single event) a line."
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "Applied and committed; what the request's events came to.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "applied",
                    "duplicates",
                    "ignored",
                    "notifications"
                  ],
                  "properties": {
                    "applied": {
                      "type": "integer",
                      "description": "Events that changed the mirror, including messages that became notifications."
                    },
                    "duplicates": {
                      "type": "integer",
                      "description": "Events applied before (the same txnId, collection and `_id`)."
                    },
                    "ignored": {
                      "type": "integer",
                      "description": "Unknown collections or types, stale txnIds, and messages the rules skip."
                    },
                    "notifications": {
                      "type": "integer",
                      "description": "Notifications made."
                    }
                  }
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "409": {
            "description": "`ditto_not_configured`: the app has no `apps[].ditto`.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "413": {
            "$ref": "#/components/responses/PayloadTooLarge"
          },
          "415": {
            "description": "`unsupported_media_type`: a `Content-Type` other than JSON or `application/x-ndjson`.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/v1/notifications": {
      "get": {
        "tags": [
          "notifications"
        ],
        "operationId": "getNotificationByMessage",
        "summary": "The notification a message id names, as getNotification shows it.",
        "description": "A message id names one message of one sender in an app; this finds its notification while it is kept (`storage.retentionHours`). The backend reads any; a user only what it sent (another sender's is 404, as an unknown one).",
        "parameters": [
          {
            "name": "messageId",
            "in": "query",
            "required": true,
            "description": "The message id a webhook carried.",
            "schema": {
              "type": "string",
              "minLength": 1,
              "maxLength": 256
            }
          },
          {
            "name": "offset",
            "in": "query",
            "required": false,
            "description": "As for getNotification.",
            "schema": {
              "type": "integer",
              "minimum": 0,
              "maximum": 2147483647
            }
          },
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "description": "As for getNotification.",
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 1000,
              "default": 1000
            }
          }
        ],
        "responses": {
          "200": {
            "description": "The notification and a page of its deliveries.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Notification"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "503": {
            "$ref": "#/components/responses/AuthUnavailable"
          }
        }
      }
    },
    "/v1/notifications/{notificationId}": {
      "get": {
        "tags": [
          "notifications"
        ],
        "operationId": "getNotification",
        "summary": "A notification and each of its deliveries.",
        "parameters": [
          {
            "name": "notificationId",
            "in": "path",
            "required": true,
            "description": "The id a webhook answered with. Anything that is not a UUID answers 404.",
            "schema": {
              "type": "string",
              "format": "uuid"
            }
          },
          {
            "name": "offset",
            "in": "query",
            "required": false,
            "description": "The position of the first delivery to list (0, the default, is the first made); the answer's `nextOffset` for the next page.",
            "schema": {
              "type": "integer",
              "minimum": 0,
              "maximum": 2147483647
            }
          },
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "description": "Deliveries to list at most.",
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 1000,
              "default": 1000
            }
          }
        ],
        "responses": {
          "200": {
            "description": "The notification and a page of its deliveries.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Notification"
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "503": {
            "$ref": "#/components/responses/AuthUnavailable"
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        }
      }
    },
    "/v1/dead-tokens": {
      "get": {
        "tags": [
          "devices"
        ],
        "operationId": "listDeadTokens",
        "summary": "The app's device tokens retired since a time (410 Unregistered, BadDeviceToken, ...).",
        "parameters": [
          {
            "name": "since",
            "in": "query",
            "required": false,
            "description": "RFC 3339 time; only tokens retired at or after it are listed.",
            "schema": {
              "type": "string",
              "format": "date-time"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "The retired tokens.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "deadTokens"
                  ],
                  "properties": {
                    "deadTokens": {
                      "type": "array",
                      "items": {
                        "$ref": "#/components/schemas/DeadToken"
                      }
                    }
                  }
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "503": {
            "$ref": "#/components/responses/AuthUnavailable"
          }
        }
      }
    }
  },
  "components": {
    "links": {
      "DeleteDevice": {
        "operationId": "deleteDevice",
        "parameters": {
          "token": "$response.body#/token"
        }
      },
      "ListUserDevices": {
        "operationId": "listUserDevices",
        "parameters": {
          "userId": "$response.body#/userId"
        }
      },
      "GetNotification": {
        "operationId": "getNotification",
        "parameters": {
          "notificationId": "$response.body#/notificationId"
        }
      }
    },
    "securitySchemes": {
      "bearerAuth": {
        "type": "http",
        "scheme": "bearer",
        "description": "An app's API key (`push-relay keys new`; the app's `apiKeySHA256` holds its SHA-256), or, with\n`X-PushRelay-App`, a user credential of that app.\n"
      },
      "appHeader": {
        "type": "apiKey",
        "in": "header",
        "name": "X-PushRelay-App",
        "description": "The app a user credential belongs to; its presence makes the bearer token a user credential."
      }
    },
    "parameters": {
      "Token": {
        "name": "token",
        "in": "path",
        "required": true,
        "description": "A device's push token, as in `POST /v1/devices`.",
        "schema": {
          "$ref": "#/components/schemas/PushTokenInput"
        }
      },
      "UserId": {
        "name": "userId",
        "in": "path",
        "required": true,
        "schema": {
          "$ref": "#/components/schemas/Id"
        }
      },
      "RoomId": {
        "name": "roomId",
        "in": "path",
        "required": true,
        "schema": {
          "$ref": "#/components/schemas/Id"
        }
      },
      "WebhookSignature": {
        "name": "X-PushRelay-Signature",
        "in": "header",
        "required": false,
        "description": "Required when the app has a `webhookSecret`: `t=<unix seconds>,v1=<hex HMAC-SHA256 of\n\"<t>.<body>\" with the secret>`.\n",
        "schema": {
          "type": "string"
        }
      },
      "IdempotencyKey": {
        "name": "Idempotency-Key",
        "in": "header",
        "required": false,
        "description": "A key the client makes for one call (a UUID, say), so that retrying it never sends twice\n(draft-ietf-httpapi-idempotency-key-header). A Structured Field string (`\"…\"`, RFC 8941) or a bare\ntoken; either way 1 to 255 visible ASCII characters once unquoted, else 400\n`invalid_idempotency_key`, as is the header sent twice. The same key from the same caller (the\napp's backend, or one user of the app) within 24 hours of the accepted call answers 200 with the\nfirst answer when the route and body bytes are the same, 422 `idempotency_key_reused` when not;\nafter 24 hours the key is forgotten. Only accepted calls are remembered. The key is checked before\n`messageId`.\n",
        "schema": {
          "type": "string",
          "pattern": "^([!#-~][!-~]{0,254}|\"([!#-\\[\\]-~]|\\\\[\"\\\\]){1,255}\")$"
        },
        "example": "\"8e03978e-40d5-43e8-bc93-6894a57f9324\""
      }
    },
    "schemas": {
      "Id": {
        "type": "string",
        "description": "A room, user or message id; 1...256 bytes of UTF-8 without control characters.",
        "minLength": 1,
        "maxLength": 256,
        "pattern": "^[^\\x00-\\x1F\\x7F-\\x9F]+$"
      },
      "DeviceTokenInput": {
        "type": "string",
        "description": "An APNs device token: an even number of hex digits, 8...256 bytes (32 today). Uppercase,\nembedded whitespace and `<…>` around it are accepted and normalized to lowercase hex.\n",
        "pattern": "^([0-9A-Fa-f]{2}){8,256}$"
      },
      "DeviceTokenHex": {
        "type": "string",
        "description": "A device token as lowercase hex.",
        "pattern": "^([0-9a-f]{2}){8,256}$"
      },
      "RegistrationToken": {
        "type": "string",
        "description": "An FCM registration token, exactly as the Firebase SDK gave it.",
        "pattern": "^[A-Za-z0-9_:-]{32,1024}$"
      },
      "WebDeviceToken": {
        "type": "string",
        "description": "A web device's token, derived from its subscription's endpoint (base64url of its SHA-256).",
        "pattern": "^web-[A-Za-z0-9_-]{43}$"
      },
      "PushTokenInput": {
        "description": "An APNs device token (iOS), an FCM registration token (Android) or a web device's token, read by its platform's rules.",
        "anyOf": [
          {
            "$ref": "#/components/schemas/DeviceTokenInput"
          },
          {
            "$ref": "#/components/schemas/RegistrationToken"
          },
          {
            "$ref": "#/components/schemas/WebDeviceToken"
          }
        ]
      },
      "PushToken": {
        "description": "A device's push token as stored (APNs tokens as lowercase hex).",
        "anyOf": [
          {
            "$ref": "#/components/schemas/DeviceTokenHex"
          },
          {
            "$ref": "#/components/schemas/RegistrationToken"
          },
          {
            "$ref": "#/components/schemas/WebDeviceToken"
          }
        ]
      },
      "Platform": {
        "type": "string",
        "enum": [
          "ios",
          "android",
          "web"
        ],
        "description": "`ios`: APNs; `android`: FCM; `web`: a browser's push service (Web Push)."
      },
      "WebPushSubscription": {
        "type": "object",
        "description": "A browser's push subscription, as `PushSubscription.toJSON()` gives it; other fields are ignored.",
        "required": [
          "endpoint",
          "keys"
        ],
        "properties": {
          "endpoint": {
            "type": "string",
            "description": "The push service URL (https; at most 2048 bytes). Never shown or logged.",
            "maxLength": 2048
          },
          "expirationTime": {
            "type": [
              "number",
              "null"
            ],
            "description": "When the subscription expires (milliseconds since the UNIX epoch); accepted, not kept."
          },
          "keys": {
            "type": "object",
            "required": [
              "p256dh",
              "auth"
            ],
            "properties": {
              "p256dh": {
                "type": "string",
                "description": "The browser's P-256 public key, an uncompressed point in base64url (87 characters).",
                "maxLength": 100
              },
              "auth": {
                "type": "string",
                "description": "The 16-byte authentication secret in base64url (22 characters).",
                "maxLength": 32
              }
            }
          }
        }
      },
      "Environment": {
        "type": "string",
        "enum": [
          "sandbox",
          "production"
        ]
      },
      "Timestamp": {
        "type": "string",
        "format": "date-time",
        "description": "RFC 3339, UTC, milliseconds.",
        "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$"
      },
      "DeviceRegistration": {
        "type": "object",
        "additionalProperties": false,
        "properties": {
          "token": {
            "description": "The device's push token; required for `ios` and `android`, none for `web`.",
            "$ref": "#/components/schemas/PushTokenInput"
          },
          "subscription": {
            "description": "A web device's push subscription; required for `web`, none for the others.",
            "anyOf": [
              {
                "$ref": "#/components/schemas/WebPushSubscription"
              },
              {
                "type": "null"
              }
            ]
          },
          "platform": {
            "description": "The device's platform; absent or null for `ios`.",
            "anyOf": [
              {
                "$ref": "#/components/schemas/Platform"
              },
              {
                "type": "null"
              }
            ]
          },
          "userId": {
            "description": "Required with the API key; a user may leave it out or must give its own.",
            "$ref": "#/components/schemas/Id"
          },
          "environment": {
            "description": "The APNs environment the token belongs to (iOS only); absent or null for the app's\n`apns.defaultEnvironment`.\n",
            "anyOf": [
              {
                "$ref": "#/components/schemas/Environment"
              },
              {
                "type": "null"
              }
            ]
          },
          "rooms": {
            "type": [
              "array",
              "null"
            ],
            "description": "Rooms the user joins; absent or null for none. For an app with a Ditto stream (`apps[].ditto`) the list is read and ignored: membership comes from Ditto.",
            "items": {
              "$ref": "#/components/schemas/Id"
            }
          }
        }
      },
      "Device": {
        "type": "object",
        "required": [
          "token",
          "platform",
          "userId",
          "state",
          "createdAt",
          "updatedAt"
        ],
        "properties": {
          "token": {
            "$ref": "#/components/schemas/PushToken"
          },
          "platform": {
            "$ref": "#/components/schemas/Platform"
          },
          "userId": {
            "$ref": "#/components/schemas/Id"
          },
          "environment": {
            "description": "The APNs environment; iOS devices only.",
            "$ref": "#/components/schemas/Environment"
          },
          "endpointOrigin": {
            "type": "string",
            "description": "A web device's push service, the origin of its endpoint (`https://fcm.googleapis.com`)."
          },
          "state": {
            "type": "string",
            "enum": [
              "live",
              "retired"
            ]
          },
          "createdAt": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "updatedAt": {
            "$ref": "#/components/schemas/Timestamp"
          }
        }
      },
      "MembershipUpdate": {
        "type": "object",
        "additionalProperties": false,
        "properties": {
          "notify": {
            "type": [
              "string",
              "null"
            ],
            "enum": [
              "all",
              "mentions",
              "none",
              "default",
              null
            ],
            "description": "The user's own level for the room (NotifyLevel), or `default` to follow the user's default again.\nAbsent or null keeps the current level (a new member follows its default). Not with `muted`.\n"
          },
          "muted": {
            "type": [
              "boolean",
              "null"
            ],
            "deprecated": true,
            "description": "The former spelling of `notify`: true is `none`, false is `default`."
          }
        }
      },
      "NotifyLevel": {
        "type": "string",
        "enum": [
          "all",
          "mentions",
          "none"
        ],
        "description": "Which of a room's messages notify a user: `all`; `mentions`, only those that mention the user (a\nwebhook's `mentions`, or Ditto's mentions: the message's `mentions[].userId` and the user document's\n`mentions[roomId]`), every message of a Ditto DM room counting as one; `none`. A user's level for a\nroom is its own for the room when set, else its default (`/v1/users/{userId}/settings`), else `all`.\n"
      },
      "UserSettings": {
        "type": "object",
        "required": [
          "userId",
          "notify"
        ],
        "properties": {
          "userId": {
            "$ref": "#/components/schemas/Id"
          },
          "notify": {
            "$ref": "#/components/schemas/NotifyLevel"
          }
        }
      },
      "UserSettingsUpdate": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "notify"
        ],
        "properties": {
          "notify": {
            "$ref": "#/components/schemas/NotifyLevel"
          }
        }
      },
      "ReadMarker": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "at"
        ],
        "properties": {
          "at": {
            "type": "string",
            "format": "date-time",
            "description": "RFC 3339; the moment up to which the user has read the room."
          }
        }
      },
      "ReadPosition": {
        "type": "object",
        "required": [
          "roomId",
          "userId",
          "readAt"
        ],
        "properties": {
          "roomId": {
            "$ref": "#/components/schemas/Id"
          },
          "userId": {
            "$ref": "#/components/schemas/Id"
          },
          "readAt": {
            "$ref": "#/components/schemas/Timestamp"
          }
        }
      },
      "Unread": {
        "type": "object",
        "required": [
          "total",
          "rooms"
        ],
        "properties": {
          "total": {
            "type": "integer",
            "minimum": 0,
            "description": "Unread messages in every room of the user."
          },
          "rooms": {
            "type": "object",
            "description": "Unread messages by room id; only rooms with some, the 1,000 most unread at most.",
            "additionalProperties": {
              "type": "integer",
              "minimum": 1
            }
          }
        }
      },
      "RoomSettings": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "membership"
        ],
        "properties": {
          "membership": {
            "$ref": "#/components/schemas/RoomMembership"
          }
        }
      },
      "RoomMembership": {
        "type": "string",
        "enum": [
          "open",
          "closed"
        ],
        "description": "`open`: users join themselves; `closed`: only the app's backend adds members, and setting it removes\nthe members who joined themselves (those the backend added stay). Members leave and set their levels either way.\nA room without a setting of its own follows its app's `roomMembership` (open by default).\n"
      },
      "Room": {
        "type": "object",
        "required": [
          "roomId",
          "membership"
        ],
        "properties": {
          "roomId": {
            "$ref": "#/components/schemas/Id"
          },
          "membership": {
            "$ref": "#/components/schemas/RoomMembership"
          },
          "name": {
            "type": "string",
            "description": "The mirrored room's `name` (an app with a Ditto stream; absent when the room has none)."
          },
          "direct": {
            "type": "boolean",
            "description": "Whether the mirrored room is a DM room (of `dm_rooms`); an app with a Ditto stream only."
          },
          "source": {
            "type": "string",
            "enum": [
              "ditto"
            ],
            "description": "`ditto`: the room is the app's Ditto mirror's; absent for the relay's own rooms."
          }
        }
      },
      "MessageWebhookCommon": {
        "type": "object",
        "required": [
          "roomId"
        ],
        "properties": {
          "roomId": {
            "$ref": "#/components/schemas/Id"
          },
          "senderId": {
            "description": "Required with the API key; a user may leave it out or must give its own.",
            "$ref": "#/components/schemas/Id"
          },
          "messageId": {
            "description": "The SDK's message id, one message of one sender in the app whatever its kind: the same webhook again is sent once (200 with the first notification id), the id on another kind, room or sender is 409 `message_id_conflict`.",
            "anyOf": [
              {
                "$ref": "#/components/schemas/Id"
              },
              {
                "type": "null"
              }
            ]
          },
          "roomName": {
            "type": [
              "string",
              "null"
            ],
            "maxLength": 16384,
            "description": "The alert title; at most 16384 bytes of UTF-8, of which a push shows (and the relay keeps) at most 100 characters and 256 bytes."
          },
          "senderName": {
            "type": [
              "string",
              "null"
            ],
            "maxLength": 16384,
            "description": "Shown before the text; at most 16384 bytes of UTF-8, of which a push shows (and the relay keeps) at most 100 characters and 256 bytes."
          },
          "senderDeviceToken": {
            "description": "The sending device (either platform), left out of the recipients; from a user credential, only when it is not another user's device.",
            "anyOf": [
              {
                "$ref": "#/components/schemas/PushTokenInput"
              },
              {
                "type": "null"
              }
            ]
          },
          "recipients": {
            "type": [
              "array",
              "null"
            ],
            "maxItems": 10000,
            "description": "The users to notify instead of the room's members (absent or null); a user may name only\nmembers of the room, and those whose level leaves the message out are skipped silently (the\nbackend's reach them).\n",
            "items": {
              "$ref": "#/components/schemas/Id"
            }
          },
          "mentions": {
            "type": [
              "array",
              "null"
            ],
            "maxItems": 1000,
            "description": "The users the message mentions: a recipient at level `mentions` (NotifyLevel) gets the message\nwhen named here. Mentions add no recipients. A webhook room is never a DM; name the other\nparticipant here to reach it at level `mentions`.\n",
            "items": {
              "$ref": "#/components/schemas/Id"
            }
          }
        }
      },
      "MessageWebhook": {
        "allOf": [
          {
            "$ref": "#/components/schemas/MessageWebhookCommon"
          }
        ],
        "type": "object",
        "unevaluatedProperties": false,
        "required": [
          "text"
        ],
        "properties": {
          "text": {
            "type": "string",
            "description": "The message text; kept up to 4096 bytes of UTF-8 and cut on a character boundary to fit each service's limit (APNs' 4096-byte payload, FCM's 4096-byte message)."
          }
        }
      },
      "ImageMessageWebhook": {
        "allOf": [
          {
            "$ref": "#/components/schemas/MessageWebhookCommon"
          }
        ],
        "type": "object",
        "unevaluatedProperties": false,
        "properties": {
          "caption": {
            "type": [
              "string",
              "null"
            ],
            "maxLength": 16384,
            "description": "At most 16384 bytes of UTF-8, of which the relay keeps 4096; without it the alert says \"📷 Image\"."
          },
          "imageUrl": {
            "type": [
              "string",
              "null"
            ],
            "maxLength": 2048,
            "description": "An absolute https URL of at most 2048 bytes of the characters RFC 3986 allows (anything else\npercent-encoded), with no user info, port 443 or none, and a fully qualified host name: no IP\naddress in any spelling (IPv6, IPv4, or a host ending in a numeric label such as `2130706433`),\nno `localhost`, `local`, `home.arpa` or `internal` name; else 400 `invalid_field`. Sent as the\npayload's top-level `imageUrl` for the app's notification service extension (not with `privacy`).\n"
          }
        }
      },
      "WebhookAccepted": {
        "type": "object",
        "required": [
          "devices"
        ],
        "properties": {
          "notificationId": {
            "type": "string",
            "format": "uuid",
            "pattern": "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
            "description": "The notification made; absent when `source` is `ditto` (nothing is stored)."
          },
          "devices": {
            "type": "integer",
            "minimum": 0,
            "description": "Deliveries created, one per recipient device; 0 when `source` is `ditto`."
          },
          "source": {
            "type": "string",
            "enum": [
              "ditto"
            ],
            "description": "`ditto`: the app has a Ditto stream (`apps[].ditto`), which makes the push; this webhook was authenticated and validated, and stored and sent nothing, so an app that still forwards the delegate does not double its pushes. Absent when the relay made the notification."
          }
        }
      },
      "Notification": {
        "type": "object",
        "required": [
          "notificationId",
          "kind",
          "roomId",
          "senderId",
          "createdAt",
          "counts",
          "deliveries"
        ],
        "properties": {
          "notificationId": {
            "type": "string",
            "format": "uuid",
            "pattern": "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
          },
          "kind": {
            "type": "string",
            "enum": [
              "message",
              "image_message",
              "removal"
            ],
            "description": "`removal`: made by the relay when a Ditto message is deleted: a background push that removes the deleted message's notification from the devices it was sent to; its `messageId` is the delete document's `_id`."
          },
          "roomId": {
            "$ref": "#/components/schemas/Id"
          },
          "senderId": {
            "$ref": "#/components/schemas/Id"
          },
          "messageId": {
            "$ref": "#/components/schemas/Id",
            "description": "Absent when the webhook gave none."
          },
          "createdAt": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "counts": {
            "type": "object",
            "required": [
              "pending",
              "sent",
              "failed",
              "retired",
              "cancelled"
            ],
            "properties": {
              "pending": {
                "type": "integer",
                "minimum": 0
              },
              "sent": {
                "type": "integer",
                "minimum": 0
              },
              "failed": {
                "type": "integer",
                "minimum": 0
              },
              "retired": {
                "type": "integer",
                "minimum": 0
              },
              "cancelled": {
                "type": "integer",
                "minimum": 0
              }
            }
          },
          "deliveries": {
            "type": "array",
            "description": "A page of the deliveries, one per device, in the order they were made. To a user (its own notification) the entries carry no `tokenSuffix`: the devices are other users'.",
            "items": {
              "$ref": "#/components/schemas/Delivery"
            }
          },
          "nextOffset": {
            "type": "integer",
            "minimum": 1,
            "description": "The `offset` of the next page; absent when this page ends the list."
          }
        }
      },
      "Delivery": {
        "type": "object",
        "required": [
          "status",
          "pushId",
          "attempts",
          "createdAt",
          "updatedAt"
        ],
        "properties": {
          "tokenSuffix": {
            "type": "string",
            "description": "The token's last 8 characters (hex for an APNs token); shown to the app's backend only, never to a user.",
            "pattern": "^[A-Za-z0-9_:-]{1,8}$"
          },
          "status": {
            "type": "string",
            "enum": [
              "pending",
              "sent",
              "failed",
              "retired",
              "cancelled"
            ],
            "description": "`cancelled`: ended unsent; `lastReason` is `read` (the recipient read the room up to the message's time within the grace window, `apps[].pushDelaySeconds`) or `deleted` (the message was deleted)."
          },
          "pushId": {
            "type": "string",
            "format": "uuid",
            "description": "The delivery's id, the same for every attempt, whatever the push service."
          },
          "apnsId": {
            "type": "string",
            "format": "uuid",
            "description": "The `apns-id` header of every attempt (the same value as `pushId`); iOS deliveries only, absent for Android (FCM names a message itself)."
          },
          "attempts": {
            "type": "integer",
            "minimum": 0
          },
          "lastStatus": {
            "type": "integer",
            "description": "The push service's HTTP status of the last attempt; absent before any answer."
          },
          "lastReason": {
            "type": "string",
            "description": "The service's reason (e.g. APNs' `BadDeviceToken`, FCM's `UNREGISTERED`) or the transport failure of the last attempt; for a `cancelled` delivery `read` or `deleted`; for a `sent` one `deleted` once the message was deleted and the device was sent its removal."
          },
          "createdAt": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "updatedAt": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "sentAt": {
            "$ref": "#/components/schemas/Timestamp"
          },
          "nextAttemptAt": {
            "$ref": "#/components/schemas/Timestamp",
            "description": "When a pending delivery is tried next."
          }
        }
      },
      "DeadToken": {
        "type": "object",
        "required": [
          "token",
          "platform",
          "userId",
          "reason",
          "apnsTimestamp",
          "retiredAt"
        ],
        "properties": {
          "token": {
            "$ref": "#/components/schemas/PushToken"
          },
          "platform": {
            "$ref": "#/components/schemas/Platform"
          },
          "userId": {
            "$ref": "#/components/schemas/Id"
          },
          "environment": {
            "description": "The APNs environment; iOS devices only.",
            "$ref": "#/components/schemas/Environment"
          },
          "reason": {
            "type": "string",
            "description": "Why it was retired (the service's reason, e.g. APNs' `Unregistered`, FCM's `UNREGISTERED`)."
          },
          "apnsTimestamp": {
            "description": "APNs' 410 timestamp (when the token stopped being valid), null when APNs gave none and for android devices.",
            "oneOf": [
              {
                "type": "string",
                "format": "date-time"
              },
              {
                "type": "null"
              }
            ]
          },
          "retiredAt": {
            "type": "string",
            "format": "date-time"
          }
        }
      },
      "Readiness": {
        "type": "object",
        "required": [
          "status",
          "checks"
        ],
        "properties": {
          "status": {
            "type": "string",
            "enum": [
              "ready",
              "unavailable"
            ]
          },
          "checks": {
            "type": "object",
            "description": "On the API's listener `storage` and `push` (when an app has an endpoint); on the admin listener `storage`, `apns:<appId>` for each app and `fcm:<appId>` for each app with FCM: `ok`, or why the check failed; `provider:<appId>` for an app whose sends are paused because a push service refuses its credentials.",
            "additionalProperties": {
              "type": "string"
            }
          }
        }
      },
      "DittoEvent": {
        "type": "object",
        "description": "One event of Ditto's change stream (CDC or a webhook data bridge).",
        "required": [
          "txnId",
          "type"
        ],
        "properties": {
          "txnId": {
            "type": "integer",
            "minimum": 0
          },
          "type": {
            "type": "string",
            "description": "`documentChanged` or `requeryRequired`; any other type is counted as ignored."
          },
          "collection": {
            "type": "string"
          },
          "change": {
            "type": "object",
            "description": "`{\"method\": \"upsert\", \"oldValue\", \"newValue\"}` or `{\"method\": \"remove\", \"value\"}`; each document has a string `_id`."
          }
        }
      },
      "Error": {
        "type": "object",
        "required": [
          "error"
        ],
        "properties": {
          "error": {
            "type": "object",
            "required": [
              "code",
              "message"
            ],
            "properties": {
              "code": {
                "type": "string",
                "pattern": "^[a-z][a-z0-9_]*$"
              },
              "message": {
                "type": "string"
              }
            }
          }
        }
      }
    },
    "responses": {
      "WebhookAccepted": {
        "description": "Accepted; the deliveries are committed and will be sent. For an app with a Ditto stream: `{\"devices\": 0, \"source\": \"ditto\"}`, nothing stored or sent.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/WebhookAccepted"
            }
          }
        },
        "links": {
          "GetNotification": {
            "$ref": "#/components/links/GetNotification"
          }
        }
      },
      "WebhookRepeated": {
        "description": "The same webhook was accepted before (the same `messageId`, or the same `Idempotency-Key` with the same route and body within 24 hours); nothing new is sent. The first answer: its notification's id and device count.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/WebhookAccepted"
            }
          }
        },
        "links": {
          "GetNotification": {
            "$ref": "#/components/links/GetNotification"
          }
        }
      },
      "ManagedByDitto": {
        "description": "`managed_by_ditto`: the app has a Ditto stream (`apps[].ditto`) and takes its rooms and members from Ditto; nothing changed. A member write that sets a level (`notify` or `muted`) is taken instead.",
        "content": {
          "application/json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Error"
                },
                {
                  "properties": {
                    "error": {
                      "properties": {
                        "code": {
                          "enum": [
                            "managed_by_ditto"
                          ]
                        }
                      }
                    }
                  }
                }
              ]
            }
          }
        }
      },
      "MessageIdConflict": {
        "description": "`message_id_conflict`: the app already used this `messageId` for another message: of the other kind (text or image), in another room, or from another sender. A message id names one message of one sender in an app, whatever its kind; nothing is sent.",
        "content": {
          "application/json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Error"
                },
                {
                  "properties": {
                    "error": {
                      "properties": {
                        "code": {
                          "enum": [
                            "message_id_conflict"
                          ]
                        }
                      }
                    }
                  }
                }
              ]
            }
          }
        }
      },
      "IdempotencyKeyReused": {
        "description": "`idempotency_key_reused`: the caller used this `Idempotency-Key` in the last 24 hours for another request (another body, or the other webhook route); nothing is sent.",
        "content": {
          "application/json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Error"
                },
                {
                  "properties": {
                    "error": {
                      "properties": {
                        "code": {
                          "enum": [
                            "idempotency_key_reused"
                          ]
                        }
                      }
                    }
                  }
                }
              ]
            }
          }
        }
      },
      "BadRequest": {
        "description": "The request is malformed: `empty_body`, `invalid_json`, `missing_field`, `invalid_field` (a wrong\ntype or a value out of bounds), `unknown_field` (a body field the operation does not take, so a\nmisspelt optional field is not silently left out), `invalid_device_token`, `invalid_query`, `invalid_target`,\n`invalid_idempotency_key` (an `Idempotency-Key` that is not one key of 1 to 255 visible ASCII characters),\n`missing_host`, `conflicting_headers` (two Host or Authorization headers, Content-Length values that\ndiffer, or Content-Length beside Transfer-Encoding).\n",
        "content": {
          "application/json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Error"
                },
                {
                  "properties": {
                    "error": {
                      "properties": {
                        "code": {
                          "enum": [
                            "bad_request",
                            "empty_body",
                            "invalid_json",
                            "missing_field",
                            "invalid_field",
                            "unknown_field",
                            "invalid_device_token",
                            "invalid_query",
                            "invalid_target",
                            "missing_host",
                            "conflicting_headers",
                            "invalid_idempotency_key"
                          ]
                        }
                      }
                    }
                  }
                }
              ]
            }
          }
        }
      },
      "Unauthorized": {
        "description": "`unauthorized`: no `Authorization: Bearer <credential>`, or a key no app has (RFC 6750 §3);\n`invalid_signature`: a backend's webhook whose signature is missing, stale or wrong;\n`invalid_credential`: a user credential refused before it proved to be the app's, whatever the\nreason (`X-PushRelay-App` names no app or one without `userAuth`, the token is not a JWT the app's\nkeys signed, the auth webhook said no, an API key sent as a user credential); the others: a JWT the\napp's key signed whose claims the app's `userAuth` refuses (docs/configuration.md, \"User credentials\").\n",
        "headers": {
          "WWW-Authenticate": {
            "description": "`Bearer` (with `unauthorized` and the user-credential codes).",
            "schema": {
              "type": "string"
            }
          }
        },
        "content": {
          "application/json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Error"
                },
                {
                  "properties": {
                    "error": {
                      "properties": {
                        "code": {
                          "enum": [
                            "unauthorized",
                            "invalid_signature",
                            "invalid_credential",
                            "missing_claim",
                            "invalid_claim",
                            "token_expired",
                            "token_not_yet_valid",
                            "invalid_issuer",
                            "invalid_audience"
                          ]
                        }
                      }
                    }
                  }
                }
              ]
            }
          }
        }
      },
      "Forbidden": {
        "description": "A user credential asked for what its user may not do; nothing changed. `backend_only`: the call needs\nthe API key; `forbidden_user`: `userId` names another user; `forbidden_sender`: `senderId` names\nanother user; `room_closed`: only the backend adds members to this room; `not_a_member`: the user\nis not in the room; `recipient_not_a_member`: a recipient is not in the room. (Another user's device\nor notification is 404 `not_found`, as an unknown one.)\n",
        "content": {
          "application/json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Error"
                },
                {
                  "properties": {
                    "error": {
                      "properties": {
                        "code": {
                          "enum": [
                            "backend_only",
                            "forbidden_user",
                            "forbidden_sender",
                            "room_closed",
                            "not_a_member",
                            "recipient_not_a_member"
                          ]
                        }
                      }
                    }
                  }
                }
              ]
            }
          }
        }
      },
      "RateLimited": {
        "description": "`rate_limited`: the user is over one of its app's `limits` (writes per minute, webhooks per minute,\ndevices, rooms, pushes to one recipient per minute, notifications or stored bytes per UTC day), or,\nfor a user credential, the client's address or its /24 or /64 has too many credential checks in\nflight or failed (`http.credentialFailures`; checked before the credential); nothing was stored.\n",
        "headers": {
          "Retry-After": {
            "description": "Seconds until the call may succeed.",
            "required": true,
            "schema": {
              "type": "integer"
            }
          }
        },
        "content": {
          "application/json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Error"
                },
                {
                  "properties": {
                    "error": {
                      "properties": {
                        "code": {
                          "const": "rate_limited"
                        }
                      }
                    }
                  }
                }
              ]
            }
          }
        }
      },
      "AuthUnavailable": {
        "description": "`auth_unavailable`: the user credential cannot be checked now (the app's JWKS URL or Ditto auth\nwebhook does not answer, or no call of the webhook's 64 came free for the client's range within its\ntimeout); try again after `Retry-After` seconds.\n",
        "headers": {
          "Retry-After": {
            "required": true,
            "schema": {
              "type": "integer"
            }
          }
        },
        "content": {
          "application/json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Error"
                },
                {
                  "properties": {
                    "error": {
                      "properties": {
                        "code": {
                          "const": "auth_unavailable"
                        }
                      }
                    }
                  }
                }
              ]
            }
          }
        }
      },
      "NotFound": {
        "description": "`not_found`: no such resource for this app, or no such path.",
        "content": {
          "application/json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Error"
                },
                {
                  "properties": {
                    "error": {
                      "properties": {
                        "code": {
                          "const": "not_found"
                        }
                      }
                    }
                  }
                }
              ]
            }
          }
        }
      },
      "MemberNotFound": {
        "description": "`member_not_found`: the user is not a member of the room (nothing changed).",
        "content": {
          "application/json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Error"
                },
                {
                  "properties": {
                    "error": {
                      "properties": {
                        "code": {
                          "enum": [
                            "member_not_found",
                            "not_found"
                          ]
                        }
                      }
                    }
                  }
                }
              ]
            }
          }
        }
      },
      "MethodNotAllowed": {
        "description": "`method_not_allowed`: the path exists but not with this method (RFC 9110 §15.5.6).",
        "headers": {
          "Allow": {
            "description": "The methods the path serves, e.g. `PUT, DELETE`.",
            "required": true,
            "schema": {
              "type": "string"
            }
          }
        },
        "content": {
          "application/json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Error"
                },
                {
                  "properties": {
                    "error": {
                      "properties": {
                        "code": {
                          "const": "method_not_allowed"
                        }
                      }
                    }
                  }
                }
              ]
            }
          }
        }
      },
      "PayloadTooLarge": {
        "description": "`payload_too_large`: the body is over `http.maxBodyBytes` (64 KiB by default).",
        "content": {
          "application/json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Error"
                },
                {
                  "properties": {
                    "error": {
                      "properties": {
                        "code": {
                          "const": "payload_too_large"
                        }
                      }
                    }
                  }
                }
              ]
            }
          }
        }
      },
      "UnsupportedMediaType": {
        "description": "`unsupported_media_type`: a `Content-Type` other than `application/json` or `*/*+json`.",
        "content": {
          "application/json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Error"
                },
                {
                  "properties": {
                    "error": {
                      "properties": {
                        "code": {
                          "const": "unsupported_media_type"
                        }
                      }
                    }
                  }
                }
              ]
            }
          }
        }
      },
      "Unavailable": {
        "description": "`unavailable`: the relay is shutting down.",
        "content": {
          "application/json": {
            "schema": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Error"
                },
                {
                  "properties": {
                    "error": {
                      "properties": {
                        "code": {
                          "const": "unavailable"
                        }
                      }
                    }
                  }
                }
              ]
            }
          }
        }
      }
    }
  }
}
"""#
}
