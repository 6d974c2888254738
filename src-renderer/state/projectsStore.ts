import { create } from "zustand"
import type { AppEvent } from "@contract/events"
import type { ProjectId } from "@contract/ids"
import type { Snapshot } from "@contract/methods"
import type { Project } from "@contract/model"
import { emptyNormalized, replaceAll, upsertAll, type Normalized } from "./normalized"

/** Every project, in creation order. */
export type ProjectsState = Normalized<ProjectId, Project>

export const initialProjectsState: ProjectsState = emptyNormalized()

const keyOf = (project: Project) => project.id

export function applyProjectsEvents<S extends ProjectsState>(state: S, events: ReadonlyArray<AppEvent>): S {
  const changed: Array<Project> = []
  for (const event of events) {
    if (event._tag === "project.created") changed.push(event.project)
  }
  return changed.length === 0 ? state : upsertAll(state, changed, keyOf)
}

export const applyProjectsEvent = <S extends ProjectsState>(state: S, event: AppEvent): S =>
  applyProjectsEvents(state, [event])

export const loadProjectsSnapshot = <S extends ProjectsState>(state: S, snapshot: Snapshot): S =>
  replaceAll(state, snapshot.projects, keyOf)

export const selectProjectIds = (state: ProjectsState) => state.ids
export const selectProject = (id: ProjectId) => (state: ProjectsState) => state.byId[id]
/** The project's name, or `undefined` until it is known. */
export const selectProjectName = (id: ProjectId | undefined) => (state: ProjectsState) =>
  id === undefined ? undefined : state.byId[id]?.name

export interface ProjectsStore extends ProjectsState {
  readonly applyEvents: (events: ReadonlyArray<AppEvent>) => void
  readonly loadSnapshot: (snapshot: Snapshot) => void
}

export const createProjectsStore = () =>
  create<ProjectsStore>()((set) => ({
    ...initialProjectsState,
    applyEvents: (events) => set((state) => applyProjectsEvents(state, events)),
    loadSnapshot: (snapshot) => set((state) => loadProjectsSnapshot(state, snapshot)),
  }))

export const useProjectsStore = createProjectsStore()
