import { Schema } from "effect"
import { Project, Session } from "./model"

// One tagged union for every push event (SG-13). Tags are the domain's own event names
// (`permission.v2.asked` and friends come from SPEC-CORE H.2); later features add members here.

export const ProjectCreated = Schema.TaggedStruct("project.created", { project: Project })
export const SessionCreated = Schema.TaggedStruct("session.created", { session: Session })
export const SessionUpdated = Schema.TaggedStruct("session.updated", { session: Session })

export const AppEvent = Schema.Union([ProjectCreated, SessionCreated, SessionUpdated])
export type AppEvent = typeof AppEvent.Type

/** An event as it travels: with the bus's strictly increasing sequence number and its time. */
export const Envelope = Schema.Struct({ seq: Schema.Int, at: Schema.Number, event: AppEvent })
export type Envelope = typeof Envelope.Type

/** What one push carries: consecutive envelopes, oldest first. */
export const EventBatch = Schema.Struct({ events: Schema.Array(Envelope) })
export type EventBatch = typeof EventBatch.Type
