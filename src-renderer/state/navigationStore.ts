import { create } from "zustand"

/** The four top-level views, in navigation order. */
export const Views = ["inbox", "sessions", "approvals", "outputs"] as const
export type View = (typeof Views)[number]

export interface NavigationState {
  readonly view: View
}

export const initialNavigationState: NavigationState = { view: "inbox" }

export const navigateTo = <S extends NavigationState>(state: S, view: View): S =>
  state.view === view ? state : { ...state, view }

export const selectView = (state: NavigationState) => state.view

export interface NavigationStore extends NavigationState {
  readonly navigate: (view: View) => void
}

export const createNavigationStore = () =>
  create<NavigationStore>()((set) => ({
    ...initialNavigationState,
    navigate: (view) => set((state) => navigateTo(state, view)),
  }))

export const useNavigationStore = createNavigationStore()
