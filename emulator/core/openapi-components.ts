/**
 * Component schemas of the served OpenAPI document: copied from the live service's published
 * document (shared/reference/krova-openapi.json) with every `nullable: true` rewritten as a
 * JSON Schema type array, so a 2020-12 validator reads them right. Emulator additions live in
 * openapi.ts.
 */
export const REFERENCE_SCHEMAS: Record<string, Record<string, unknown>> = {
  Space: {
    type: "object",
    properties: {
      id: {
        type: "string"
      },
      name: {
        type: "string"
      },
      tier: {
        type: "string"
      },
      createdAt: {
        type: "string",
        format: "date-time"
      }
    },
    required: [
      "id",
      "name",
      "tier",
      "createdAt"
    ]
  },
  CubeSshInfo: {
    type: "object",
    properties: {
      host: {
        type: [
          "string",
          "null"
        ]
      },
      port: {
        type: "integer"
      },
      user: {
        type: "string"
      },
      hostKeys: {
        type: "array",
        items: {
          type: "object",
          properties: {
            type: {
              type: "string"
            },
            key: {
              type: "string"
            }
          },
          required: [
            "type",
            "key"
          ]
        }
      }
    },
    required: [
      "host",
      "port",
      "user",
      "hostKeys"
    ]
  },
  Cube: {
    type: "object",
    properties: {
      id: {
        type: "string"
      },
      name: {
        type: "string"
      },
      state: {
        type: "string",
        enum: [
          "pending",
          "booting",
          "running",
          "stopped",
          "stopping",
          "resizing",
          "error",
          "deleted"
        ]
      },
      publicIpv4: {
        type: [
          "string",
          "null"
        ]
      },
      resources: {
        type: "object",
        properties: {
          vcpu: {
            type: "integer"
          },
          ramGb: {
            type: "number"
          },
          diskGb: {
            type: "integer"
          }
        },
        required: [
          "vcpu",
          "ramGb",
          "diskGb"
        ]
      },
      image: {
        type: "string"
      },
      sshUser: {
        type: "string"
      },
      costPerHour: {
        type: "number"
      },
      serverDomain: {
        type: [
          "string",
          "null"
        ],
        description: "The hostname of the server currently hosting this Cube (e.g. `mango.krova.cloud`). This is NOT the Cube's own SSH target — use `host` from GET .../ssh for that, which is the Cube's own stable hostname and survives migration to another server. Null when the Cube has no server assigned. Only present on the single-Cube GET; list and create responses omit it."
      },
      terminationProtection: {
        type: "boolean",
        description: "Whether this Cube is locked against customer-initiated deletion. Per-Cube, opt-in, default `false`. Power-off, wake, restart, snapshot, and restore remain allowed regardless. The two audit fields are populated whenever the flag is on."
      },
      terminationProtectionChangedAt: {
        type: [
          "string",
          "null"
        ],
        format: "date-time",
        description: "When `terminationProtection` last changed. `null` until the flag is first set, then tracked on every toggle."
      },
      terminationProtectionChangedBy: {
        type: [
          "string",
          "null"
        ],
        description: "Who last changed `terminationProtection`. `\"user:<id>\"` for customer toggles, `\"admin:<id>\"` for operator changes. `null` until the flag is first set."
      },
      createdAt: {
        type: "string",
        format: "date-time"
      },
      updatedAt: {
        type: "string",
        format: "date-time"
      }
    },
    required: [
      "id",
      "name",
      "state",
      "publicIpv4",
      "resources",
      "image",
      "sshUser",
      "costPerHour",
      "terminationProtection",
      "createdAt",
      "updatedAt"
    ]
  },
  Pagination: {
    type: "object",
    properties: {
      page: {
        type: "integer"
      },
      limit: {
        type: "integer"
      },
      total: {
        type: "integer"
      },
      totalPages: {
        type: "integer"
      }
    },
    required: [
      "page",
      "limit",
      "total",
      "totalPages"
    ]
  },
  Region: {
    type: "object",
    properties: {
      id: {
        type: "string"
      },
      name: {
        type: "string"
      },
      slug: {
        type: "string"
      }
    },
    required: [
      "id",
      "name",
      "slug"
    ]
  },
  Image: {
    type: "object",
    properties: {
      id: {
        type: "string"
      },
      name: {
        type: "string"
      },
      version: {
        type: "string"
      },
      description: {
        type: "string"
      },
      defaultUser: {
        type: "string"
      }
    },
    required: [
      "id",
      "name",
      "version",
      "description",
      "defaultUser"
    ]
  },
  PricingTier: {
    type: "object",
    properties: {
      minVcpus: {
        type: "integer"
      },
      maxVcpus: {
        type: [
          "integer",
          "null"
        ]
      },
      multiplier: {
        type: "number"
      },
      label: {
        type: "string"
      }
    },
    required: [
      "minVcpus",
      "maxVcpus",
      "multiplier",
      "label"
    ]
  },
  DnsRecord: {
    type: "object",
    properties: {
      id: {
        type: "string",
        enum: [
          "ownership",
          "routing",
          "certificate"
        ]
      },
      type: {
        type: "string",
        enum: [
          "CNAME",
          "TXT",
          "A"
        ]
      },
      host: {
        type: "string"
      },
      value: {
        type: "string"
      },
      purpose: {
        type: "string",
        enum: [
          "ownership",
          "routing",
          "certificate"
        ]
      },
      note: {
        type: [
          "string",
          "null"
        ]
      },
      mustBeGrey: {
        type: "boolean"
      },
      proxyOk: {
        type: "boolean"
      }
    },
    required: [
      "id",
      "type",
      "host",
      "value",
      "purpose",
      "mustBeGrey",
      "proxyOk"
    ]
  },
  DnsRecordStatus: {
    type: "object",
    properties: {
      id: {
        type: "string"
      },
      type: {
        type: "string",
        enum: [
          "CNAME",
          "TXT",
          "A"
        ]
      },
      host: {
        type: "string"
      },
      value: {
        type: "string"
      },
      purpose: {
        type: "string"
      },
      note: {
        type: [
          "string",
          "null"
        ]
      },
      mustBeGrey: {
        type: "boolean"
      },
      proxyOk: {
        type: "boolean"
      },
      state: {
        type: "string",
        enum: [
          "found",
          "missing",
          "mismatch",
          "unknown"
        ]
      },
      detail: {
        type: "string"
      },
      observed: {
        type: [
          "array",
          "null"
        ],
        items: {
          type: "string"
        }
      }
    },
    required: [
      "id",
      "type",
      "host",
      "value",
      "purpose",
      "state",
      "detail"
    ]
  },
  Domain: {
    type: "object",
    properties: {
      id: {
        type: "string"
      },
      cubeId: {
        type: "string"
      },
      domain: {
        type: "string"
      },
      port: {
        type: [
          "integer",
          "null"
        ]
      },
      status: {
        type: "string"
      },
      ingressStatus: {
        type: [
          "string",
          "null"
        ]
      },
      securityHeadersMode: {
        type: "string",
        enum: [
          "enforced",
          "app_managed"
        ]
      },
      responseHeaderTimeoutSecs: {
        type: "integer"
      },
      responseHeaderOverrides: {
        type: [
          "object",
          "null"
        ],
        description: "Header rewrites: `set` adds/overwrites, `remove` deletes. Null clears all.",
        properties: {
          set: {
            type: "object",
            additionalProperties: {
              type: "string"
            }
          },
          remove: {
            type: "array",
            items: {
              type: "string"
            }
          }
        }
      },
      requestHeaderOverrides: {
        type: [
          "object",
          "null"
        ],
        description: "Header rewrites: `set` adds/overwrites, `remove` deletes. Null clears all.",
        properties: {
          set: {
            type: "object",
            additionalProperties: {
              type: "string"
            }
          },
          remove: {
            type: "array",
            items: {
              type: "string"
            }
          }
        }
      },
      maxRequestBodyMb: {
        type: [
          "integer",
          "null"
        ]
      },
      responseCompression: {
        type: "boolean"
      },
      ipAllowList: {
        type: [
          "array",
          "null"
        ],
        items: {
          type: "string"
        }
      },
      ipDenyList: {
        type: [
          "array",
          "null"
        ],
        items: {
          type: "string"
        }
      },
      basicAuthUser: {
        type: [
          "string",
          "null"
        ]
      },
      basicAuthEnabled: {
        type: "boolean"
      },
      corsConfig: {
        type: [
          "object",
          "null"
        ]
      },
      isWildcard: {
        type: "boolean"
      },
      wildcardCertState: {
        type: [
          "string",
          "null"
        ],
        enum: [
          "pending_delegation",
          "issuing",
          "ready",
          "failed",
          null
        ]
      },
      acmeDelegationTarget: {
        type: [
          "string",
          "null"
        ]
      },
      createdAt: {
        type: "string",
        format: "date-time"
      },
      updatedAt: {
        type: "string",
        format: "date-time"
      }
    },
    required: [
      "id",
      "cubeId",
      "domain",
      "port",
      "status",
      "ingressStatus",
      "securityHeadersMode",
      "responseHeaderTimeoutSecs",
      "responseHeaderOverrides",
      "requestHeaderOverrides",
      "maxRequestBodyMb",
      "responseCompression",
      "ipAllowList",
      "ipDenyList",
      "basicAuthUser",
      "basicAuthEnabled",
      "corsConfig",
      "isWildcard",
      "wildcardCertState",
      "acmeDelegationTarget",
      "createdAt",
      "updatedAt"
    ]
  },
  TcpMapping: {
    type: "object",
    properties: {
      id: {
        type: "string"
      },
      cubeId: {
        type: "string"
      },
      cubePort: {
        type: "integer"
      },
      host: {
        type: [
          "string",
          "null"
        ],
        description: "Where to connect for this mapping: `host:hostPort`. The Cube's own stable hostname, which survives migration to another server, falling back to the server's public IP when the Cube has no DNS record yet. Identical to `host` from GET .../ssh, and the same value for every mapping on a Cube. Null only when the Cube has no server assigned, in which case there is nowhere to connect. Do NOT use `serverDomain` from the Cube object — that is the current physical host and changes when the Cube moves."
      },
      hostPort: {
        type: "integer"
      },
      label: {
        type: [
          "string",
          "null"
        ]
      },
      status: {
        type: "string"
      },
      isSsh: {
        type: "boolean"
      },
      udpEnabled: {
        type: "boolean",
        description: "Whether the mapping also forwards UDP traffic on the same host port, in addition to TCP."
      },
      createdAt: {
        type: "string",
        format: "date-time"
      },
      updatedAt: {
        type: "string",
        format: "date-time"
      },
      whitelistedIps: {
        type: "array",
        items: {
          type: "object",
          properties: {
            id: {
              type: "string"
            },
            cidr: {
              type: "string"
            }
          },
          required: [
            "id",
            "cidr"
          ]
        }
      }
    },
    required: [
      "id",
      "cubeId",
      "cubePort",
      "hostPort",
      "label",
      "status",
      "isSsh",
      "createdAt",
      "updatedAt",
      "whitelistedIps",
      "udpEnabled",
      "host"
    ]
  },
  Snapshot: {
    type: "object",
    properties: {
      id: {
        type: "string"
      },
      cubeId: {
        type: "string"
      },
      name: {
        type: "string"
      },
      sizeBytes: {
        type: [
          "integer",
          "null"
        ]
      },
      status: {
        type: "string"
      },
      kind: {
        type: "string"
      },
      createdAt: {
        type: "string",
        format: "date-time"
      }
    },
    required: [
      "id",
      "cubeId",
      "name",
      "sizeBytes",
      "status",
      "kind",
      "createdAt"
    ]
  },
  Webhook: {
    type: "object",
    properties: {
      id: {
        type: "string"
      },
      url: {
        type: "string",
        format: "uri"
      },
      events: {
        type: "array",
        items: {
          type: "string",
          description: "A Krova webhook event name (see the webhooks docs for the full list)."
        }
      },
      enabled: {
        type: "boolean"
      },
      createdAt: {
        type: "string",
        format: "date-time"
      },
      updatedAt: {
        type: "string",
        format: "date-time"
      }
    },
    required: [
      "id",
      "url",
      "events",
      "enabled",
      "createdAt",
      "updatedAt"
    ]
  },
  WebhookDelivery: {
    type: "object",
    properties: {
      id: {
        type: "string"
      },
      event: {
        type: "string"
      },
      status: {
        type: "string",
        enum: [
          "pending",
          "delivered",
          "failed"
        ]
      },
      attempts: {
        type: "integer"
      },
      lastAttemptAt: {
        type: [
          "string",
          "null"
        ],
        format: "date-time"
      },
      responseStatus: {
        type: [
          "integer",
          "null"
        ]
      },
      createdAt: {
        type: "string",
        format: "date-time"
      }
    },
    required: [
      "id",
      "event",
      "status",
      "attempts",
      "lastAttemptAt",
      "responseStatus",
      "createdAt"
    ]
  },
  Error: {
    type: "object",
    properties: {
      error: {
        type: "string"
      }
    },
    required: [
      "error"
    ]
  }
};
