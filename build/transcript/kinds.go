// Package transcript decodes Claude Code JSONL transcripts into typed records
// and problems, one per non-empty line; it knows nothing of trees or HTML.
package transcript

import "strings"

// Record types (the "type" field) seen in real transcripts or documented.
const (
	TypeUser                = "user"
	TypeAssistant           = "assistant"
	TypeProgress            = "progress"
	TypeFileHistorySnapshot = "file-history-snapshot"
	TypeFileHistoryDelta    = "file-history-delta"
	TypeSystem              = "system"
	TypeSummary             = "summary"
	TypeQueueOperation      = "queue-operation"
	TypeAttachment          = "attachment"
	TypePermissionMode      = "permission-mode"
	TypeLastPrompt          = "last-prompt"
	TypeMode                = "mode"
	TypePRLink              = "pr-link"
	TypeATISLatch           = "atis-latch"
	TypeCustomTitle         = "custom-title"
	TypeAITitle             = "ai-title"
	TypeAgentName           = "agent-name"
	TypeAgentSetting        = "agent-setting"
	TypeBridgeSession       = "bridge-session"
	TypeSavedHookContext    = "saved_hook_context"
	// Newer top-level kinds (2.1.2xx).
	TypeCostState          = "cost-state"
	TypeContinuedIn        = "continued-in"
	TypeWorktreeState      = "worktree-state"
	TypeAgentColor         = "agent-color"
	TypeFrameLink          = "frame-link"
	TypeRelocated          = "relocated"
	TypeForkContextRef     = "fork-context-ref"
	TypeDevMods            = "dev-mods"
	TypeStarted            = "started"
	TypeResult             = "result"
	TypeTaskSummary        = "task-summary"
	TypeContentReplacement = "content-replacement"
	// Kinds newer than 2.1.237, from Claude Code's own table of record
	// types: a session's tag, the end of a conversation by the model
	// (EndConversation), and bookkeeping (latches, snapshots, context
	// collapse commits, memory mode, history suppression).
	TypeTag                   = "tag"
	TypeEndedByModel          = "ended-by-model"
	TypeIsolationLatch        = "isolation-latch"
	TypeAttributionSnapshot   = "attribution-snapshot"
	TypeObserverRef           = "observer-ref"
	TypeContextCollapseCommit = "marble-origami-commit"
	TypeContextCollapseSnap   = "marble-origami-snapshot"
	TypeContextCollapseReset  = "marble-origami-reset"
	TypeHistorySuppression    = "history-suppression"
	TypeMemoryMode            = "memory-mode"
	// TypeArtifactPrefix starts the artifact ledgers' types (artifact-*),
	// all known.
	TypeArtifactPrefix = "artifact-"
)

// System subtypes (the "subtype" field of system records). SubtypeNone is the
// 1.0.x hook/status message that carries no subtype at all.
const (
	SubtypeNone                = ""
	SubtypeStopHookSummary     = "stop_hook_summary"
	SubtypeTurnDuration        = "turn_duration"
	SubtypeAPIError            = "api_error"
	SubtypeLocalCommand        = "local_command"
	SubtypeCompactBoundary     = "compact_boundary"
	SubtypeMicrocompactBoundry = "microcompact_boundary"
	SubtypeAwaySummary         = "away_summary"
	SubtypeInformational       = "informational"
	SubtypeBridgeStatus        = "bridge_status"
	SubtypeAgentsKilled        = "agents_killed"
	SubtypeModelRefusal        = "model_refusal_fallback"
	SubtypeModelConsent        = "model_consent_fallback"
	SubtypeScheduledTaskFire   = "scheduled_task_fire"
)

// Progress data types (progress records' data.type).
const (
	ProgressBash           = "bash_progress"
	ProgressAgent          = "agent_progress"
	ProgressHook           = "hook_progress"
	ProgressMCP            = "mcp_progress"
	ProgressQueryUpdate    = "query_update"
	ProgressSearchResults  = "search_results_received"
	ProgressWaitingForTask = "waiting_for_task"
)

// Attachment types (attachment records' attachment.type).
const (
	AttachmentQueuedCommand         = "queued_command"
	AttachmentHookSuccess           = "hook_success"
	AttachmentHookSystemMessage     = "hook_system_message"
	AttachmentHookAdditionalContext = "hook_additional_context"
	AttachmentHookBlockingError     = "hook_blocking_error"
	AttachmentHookNonBlockingError  = "hook_non_blocking_error"
	AttachmentTaskReminder          = "task_reminder"
	AttachmentTotalTokensReminder   = "total_tokens_reminder"
	AttachmentSkillListing          = "skill_listing"
	AttachmentDeferredToolsDelta    = "deferred_tools_delta"
	AttachmentAgentListingDelta     = "agent_listing_delta"
	AttachmentMCPInstructionsDelta  = "mcp_instructions_delta"
	AttachmentCommandPermissions    = "command_permissions"
	AttachmentReadTruncationNotice  = "read_truncation_notice"
	AttachmentStructuredOutput      = "structured_output"
	AttachmentAutoMode              = "auto_mode"
	AttachmentEditedTextFile        = "edited_text_file"
	AttachmentNestedMemory          = "nested_memory"
	AttachmentFile                  = "file"
	AttachmentDateChange            = "date_change"
	AttachmentPlanMode              = "plan_mode"
	AttachmentPlanModeExit          = "plan_mode_exit"
	AttachmentCompactFileReference  = "compact_file_reference"
	AttachmentSelectedLinesInIDE    = "selected_lines_in_ide"
	AttachmentInvokedSkills         = "invoked_skills"
	AttachmentUltraEffortEnter      = "ultra_effort_enter"
	AttachmentCompanionIntro        = "companion_intro"
)

var knownTypes = map[string]bool{
	TypeUser: true, TypeAssistant: true, TypeProgress: true, TypeFileHistorySnapshot: true,
	TypeFileHistoryDelta: true, TypeSystem: true, TypeSummary: true, TypeQueueOperation: true,
	TypeAttachment: true, TypePermissionMode: true, TypeLastPrompt: true, TypeMode: true,
	TypePRLink: true, TypeATISLatch: true, TypeCustomTitle: true, TypeAITitle: true,
	TypeAgentName: true, TypeAgentSetting: true, TypeBridgeSession: true, TypeSavedHookContext: true,
	TypeCostState: true, TypeContinuedIn: true, TypeWorktreeState: true, TypeAgentColor: true,
	TypeFrameLink: true, TypeRelocated: true, TypeForkContextRef: true, TypeDevMods: true,
	TypeStarted: true, TypeResult: true, TypeTaskSummary: true, TypeContentReplacement: true,
	TypeTag: true, TypeEndedByModel: true, TypeIsolationLatch: true, TypeAttributionSnapshot: true,
	TypeObserverRef: true, TypeContextCollapseCommit: true, TypeContextCollapseSnap: true,
	TypeContextCollapseReset: true, TypeHistorySuppression: true, TypeMemoryMode: true,
}

var knownSubtypes = map[string]bool{
	SubtypeNone: true, SubtypeStopHookSummary: true, SubtypeTurnDuration: true, SubtypeAPIError: true,
	SubtypeLocalCommand: true, SubtypeCompactBoundary: true, SubtypeMicrocompactBoundry: true,
	SubtypeAwaySummary: true, SubtypeInformational: true, SubtypeBridgeStatus: true,
	SubtypeAgentsKilled: true, SubtypeModelRefusal: true, SubtypeModelConsent: true,
	SubtypeScheduledTaskFire: true,
}

var knownProgress = map[string]bool{
	ProgressBash: true, ProgressAgent: true, ProgressHook: true, ProgressMCP: true,
	ProgressQueryUpdate: true, ProgressSearchResults: true, ProgressWaitingForTask: true,
}

var knownAttachments = map[string]bool{
	AttachmentQueuedCommand: true, AttachmentHookSuccess: true, AttachmentHookSystemMessage: true,
	AttachmentHookAdditionalContext: true, AttachmentHookBlockingError: true,
	AttachmentHookNonBlockingError: true, AttachmentTaskReminder: true,
	AttachmentTotalTokensReminder: true, AttachmentSkillListing: true,
	AttachmentDeferredToolsDelta: true, AttachmentAgentListingDelta: true,
	AttachmentMCPInstructionsDelta: true, AttachmentCommandPermissions: true,
	AttachmentReadTruncationNotice: true, AttachmentStructuredOutput: true, AttachmentAutoMode: true,
	AttachmentEditedTextFile: true, AttachmentNestedMemory: true, AttachmentFile: true,
	AttachmentDateChange: true, AttachmentPlanMode: true, AttachmentPlanModeExit: true,
	AttachmentCompactFileReference: true, AttachmentSelectedLinesInIDE: true,
	AttachmentInvokedSkills: true, AttachmentUltraEffortEnter: true, AttachmentCompanionIntro: true,
}

// KnownType reports whether t is a record type this package types; any other
// type is kept whole as an unknown record.
func KnownType(t string) bool {
	return knownTypes[t] || strings.HasPrefix(t, TypeArtifactPrefix) && len(t) > len(TypeArtifactPrefix)
}

// KnownSubtype reports whether s is a typed system subtype ("" included).
func KnownSubtype(s string) bool { return knownSubtypes[s] }

// KnownProgress reports whether p is a typed progress data type.
func KnownProgress(p string) bool { return knownProgress[p] }

// KnownAttachment reports whether a is a typed attachment type.
func KnownAttachment(a string) bool { return knownAttachments[a] }
