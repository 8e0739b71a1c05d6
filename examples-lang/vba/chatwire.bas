Attribute VB_Name = "chatwire"
' chatwire for VBA (Office 2010 and later, 32- and 64-bit) and VB6.
' Generated from include/chatwire.h by examples-lang/vba/generate.py: do not edit;
' CI checks that it matches the header. docs/languages.md explains its use.
'
' chatwire.dll must be found: in the program's folder (VB6) or the current one,
' on the PATH, or loaded first from its full path with LoadChatwire (below).
' On 32-bit Windows every function and callback is __stdcall, as Declare and
' AddressOf expect.
' Callbacks: AddressOf a Public Function of a standard module, its parameters
' ByVal, returning Long (e.g. OnDelta(ByVal userdata As LongPtr,
' ByVal delta As LongPtr, ByVal length As LongPtr) As Long).
Option Explicit

' chatwire_status
Public Const CHATWIRE_OK As Long = 0
Public Const CHATWIRE_ERR_NULL_ARGUMENT As Long = 1
Public Const CHATWIRE_ERR_INVALID_ARGUMENT As Long = 2
Public Const CHATWIRE_ERR_INVALID_UTF8 As Long = 3
Public Const CHATWIRE_ERR_INVALID_CONVERSATION As Long = 4
Public Const CHATWIRE_ERR_MISSING_API_KEY As Long = 5
Public Const CHATWIRE_ERR_CONFIG As Long = 6
Public Const CHATWIRE_ERR_TRANSPORT As Long = 7
Public Const CHATWIRE_ERR_TIMEOUT As Long = 8
Public Const CHATWIRE_ERR_AUTH As Long = 9
Public Const CHATWIRE_ERR_RATE_LIMITED As Long = 10
Public Const CHATWIRE_ERR_SERVER As Long = 11
Public Const CHATWIRE_ERR_HTTP As Long = 12
Public Const CHATWIRE_ERR_DECODE As Long = 13
Public Const CHATWIRE_ERR_NO_JSON As Long = 14
Public Const CHATWIRE_ERR_CANCELLED As Long = 15
Public Const CHATWIRE_ERR_PANIC As Long = 16
Public Const CHATWIRE_ERR_UNAVAILABLE As Long = 17
Public Const CHATWIRE_ERR_TOO_LARGE As Long = 18
Public Const CHATWIRE_ERR_SYSTEM As Long = 19
Public Const CHATWIRE_ERR_INVALID_REPLY As Long = 20
Public Const CHATWIRE_ERR_TLS As Long = 21
Public Const CHATWIRE_ERR_CONTEXT_LENGTH As Long = 22
Public Const CHATWIRE_ERR_CONTENT_FILTERED As Long = 23

' chatwire_role
Public Const CHATWIRE_ROLE_SYSTEM As Long = 0
Public Const CHATWIRE_ROLE_USER As Long = 1
Public Const CHATWIRE_ROLE_ASSISTANT As Long = 2
Public Const CHATWIRE_ROLE_TOOL As Long = 3

' chatwire_limit
Public Const CHATWIRE_LIMIT_BODY As Long = 0
Public Const CHATWIRE_LIMIT_EVENT As Long = 1
Public Const CHATWIRE_LIMIT_STREAM As Long = 2
Public Const CHATWIRE_LIMIT_HEADERS As Long = 3

' chatwire_auth
Public Const CHATWIRE_AUTH_BEARER As Long = 0
Public Const CHATWIRE_AUTH_API_KEY As Long = 1
Public Const CHATWIRE_AUTH_NONE As Long = 2

' chatwire_schema_delivery
Public Const CHATWIRE_SCHEMA_IN_PROMPT As Long = 0
Public Const CHATWIRE_SCHEMA_IN_RESPONSE_FORMAT As Long = 1
Public Const CHATWIRE_SCHEMA_CHECK_ONLY As Long = 2

' chatwire_api
Public Const CHATWIRE_API_CHAT_COMPLETIONS As Long = 0
Public Const CHATWIRE_API_RESPONSES As Long = 1

' chatwire_log_level
Public Const CHATWIRE_LOG_OFF As Long = 0
Public Const CHATWIRE_LOG_ERROR As Long = 1
Public Const CHATWIRE_LOG_WARN As Long = 2
Public Const CHATWIRE_LOG_INFO As Long = 3
Public Const CHATWIRE_LOG_DEBUG As Long = 4

' chatwire_stream_kind
Public Const CHATWIRE_STREAM_CONTENT As Long = 0
Public Const CHATWIRE_STREAM_REASONING As Long = 1
Public Const CHATWIRE_STREAM_REFUSAL As Long = 2

' chatwire_reasoning_replay
Public Const CHATWIRE_REASONING_REPLAY_AUTO As Long = 0
Public Const CHATWIRE_REASONING_REPLAY_CURRENT_LOOP As Long = 1
Public Const CHATWIRE_REASONING_REPLAY_TOOL_CALL_TURNS As Long = 2

' chatwire_batch_state
Public Const CHATWIRE_BATCH_VALIDATING As Long = 0
Public Const CHATWIRE_BATCH_IN_PROGRESS As Long = 1
Public Const CHATWIRE_BATCH_FINALIZING As Long = 2
Public Const CHATWIRE_BATCH_COMPLETED As Long = 3
Public Const CHATWIRE_BATCH_FAILED As Long = 4
Public Const CHATWIRE_BATCH_EXPIRED As Long = 5
Public Const CHATWIRE_BATCH_CANCELLING As Long = 6
Public Const CHATWIRE_BATCH_CANCELLED As Long = 7

' Left out: they take or give uint64_t, which VB6 and 32-bit VBA lack; use the _u32 twin.
'   chatwire_batch_counts
'   chatwire_client_set_timeout_ms
'   chatwire_client_set_connect_timeout_ms
'   chatwire_client_set_idle_timeout_ms
'   chatwire_client_set_limit
'   chatwire_conversation_set_token_budget
'   chatwire_reply_usage
'   chatwire_reply_usage_details

#If VBA7 Then
    Public Declare PtrSafe Function chatwire_batch_new Lib "chatwire.dll" (ByRef batchOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_batch_add Lib "chatwire.dll" (ByVal batch As LongPtr, ByVal client As LongPtr, ByVal customId As LongPtr, ByVal conversation As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_batch_len Lib "chatwire.dll" (ByVal batch As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_batch_to_jsonl Lib "chatwire.dll" (ByVal batch As LongPtr, ByRef jsonlOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_batch_submit Lib "chatwire.dll" (ByVal client As LongPtr, ByVal batch As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_batch_open Lib "chatwire.dll" (ByVal batchId As LongPtr, ByRef batchOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_batch_id Lib "chatwire.dll" (ByVal batch As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_batch_refresh Lib "chatwire.dll" (ByVal client As LongPtr, ByVal batch As LongPtr, ByRef stateOut As Long) As Long
    Public Declare PtrSafe Function chatwire_batch_errors Lib "chatwire.dll" (ByVal batch As LongPtr, ByRef errorsOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_batch_cancel Lib "chatwire.dll" (ByVal client As LongPtr, ByVal batch As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_batch_fetch_results Lib "chatwire.dll" (ByVal client As LongPtr, ByVal batch As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_batch_read_results Lib "chatwire.dll" (ByVal batch As LongPtr, ByVal outputJsonl As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_batch_apply Lib "chatwire.dll" (ByVal batch As LongPtr, ByVal customId As LongPtr, ByVal conversation As LongPtr, ByRef replyOut As LongPtr) As Long
    Public Declare PtrSafe Sub chatwire_batch_free Lib "chatwire.dll" (ByVal batch As LongPtr)
    Public Declare PtrSafe Function chatwire_last_error Lib "chatwire.dll" () As LongPtr
    Public Declare PtrSafe Function chatwire_last_http_status Lib "chatwire.dll" () As Long
    Public Declare PtrSafe Sub chatwire_string_free Lib "chatwire.dll" (ByVal s As LongPtr)
    Public Declare PtrSafe Function chatwire_set_log_callback Lib "chatwire.dll" (ByVal callback As LongPtr, ByVal maxLevel As Long, ByVal userdata As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_client_new Lib "chatwire.dll" (ByVal baseUrl As LongPtr, ByVal apiKey As LongPtr, ByRef clientOut As LongPtr) As Long
    Public Declare PtrSafe Sub chatwire_client_free Lib "chatwire.dll" (ByVal client As LongPtr)
    Public Declare PtrSafe Function chatwire_client_new_azure Lib "chatwire.dll" (ByVal endpoint As LongPtr, ByVal deployment As LongPtr, ByVal apiVersion As LongPtr, ByVal apiKey As LongPtr, ByRef clientOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_client_set_max_retries Lib "chatwire.dll" (ByVal client As LongPtr, ByVal maxRetries As Long) As Long
    Public Declare PtrSafe Function chatwire_client_set_max_idle_connections Lib "chatwire.dll" (ByVal client As LongPtr, ByVal maxIdleConnections As Long) As Long
    Public Declare PtrSafe Function chatwire_client_set_max_in_flight Lib "chatwire.dll" (ByVal client As LongPtr, ByVal maxInFlight As Long) As Long
    Public Declare PtrSafe Function chatwire_client_set_worker_stack_size Lib "chatwire.dll" (ByVal client As LongPtr, ByVal bytes As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_client_set_header Lib "chatwire.dll" (ByVal client As LongPtr, ByVal nameArg As LongPtr, ByVal valueArg As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_client_set_json_corrections Lib "chatwire.dll" (ByVal client As LongPtr, ByVal corrections As Long) As Long
    Public Declare PtrSafe Function chatwire_client_set_schema_delivery Lib "chatwire.dll" (ByVal client As LongPtr, ByVal delivery As Long) As Long
    Public Declare PtrSafe Function chatwire_client_set_stream_usage Lib "chatwire.dll" (ByVal client As LongPtr, ByVal enabled As Long) As Long
    Public Declare PtrSafe Function chatwire_client_set_ca_file Lib "chatwire.dll" (ByVal client As LongPtr, ByVal pemPath As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_client_set_client_certificate Lib "chatwire.dll" (ByVal client As LongPtr, ByVal certPemFile As LongPtr, ByVal keyPemFile As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_client_set_proxy Lib "chatwire.dll" (ByVal client As LongPtr, ByVal proxyUrl As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_client_set_endpoint_url Lib "chatwire.dll" (ByVal client As LongPtr, ByVal url As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_client_set_api Lib "chatwire.dll" (ByVal client As LongPtr, ByVal api As Long) As Long
    Public Declare PtrSafe Function chatwire_client_set_auth Lib "chatwire.dll" (ByVal client As LongPtr, ByVal auth As Long) As Long
    Public Declare PtrSafe Function chatwire_client_set_credential_callback Lib "chatwire.dll" (ByVal client As LongPtr, ByVal callback As LongPtr, ByVal userdata As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_conversation_new Lib "chatwire.dll" (ByVal model As LongPtr, ByRef conversationOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_conversation_to_json Lib "chatwire.dll" (ByVal conversation As LongPtr, ByRef jsonOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_conversation_from_json Lib "chatwire.dll" (ByVal json As LongPtr, ByRef conversationOut As LongPtr) As Long
    Public Declare PtrSafe Sub chatwire_conversation_free Lib "chatwire.dll" (ByVal conversation As LongPtr)
    Public Declare PtrSafe Function chatwire_conversation_len Lib "chatwire.dll" (ByVal conversation As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_conversation_role Lib "chatwire.dll" (ByVal conversation As LongPtr, ByVal indexArg As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_conversation_content Lib "chatwire.dll" (ByVal conversation As LongPtr, ByVal indexArg As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_conversation_content_len Lib "chatwire.dll" (ByVal conversation As LongPtr, ByVal indexArg As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_conversation_reasoning Lib "chatwire.dll" (ByVal conversation As LongPtr, ByVal indexArg As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_conversation_reasoning_len Lib "chatwire.dll" (ByVal conversation As LongPtr, ByVal indexArg As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_conversation_set_system Lib "chatwire.dll" (ByVal conversation As LongPtr, ByVal textArg As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_conversation_append Lib "chatwire.dll" (ByVal conversation As LongPtr, ByVal role As Long, ByVal content As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_conversation_truncate Lib "chatwire.dll" (ByVal conversation As LongPtr, ByVal lenArg As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_conversation_append_tool_result Lib "chatwire.dll" (ByVal conversation As LongPtr, ByVal toolCallId As LongPtr, ByVal content As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_conversation_append_user_image Lib "chatwire.dll" (ByVal conversation As LongPtr, ByVal textArg As LongPtr, ByVal image As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_conversation_append_user_file Lib "chatwire.dll" (ByVal conversation As LongPtr, ByVal textArg As LongPtr, ByVal fileArg As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_conversation_last_dropped Lib "chatwire.dll" (ByVal conversation As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_conversation_remove Lib "chatwire.dll" (ByVal conversation As LongPtr, ByVal indexArg As LongPtr, ByVal countArg As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_conversation_append_tool_calls Lib "chatwire.dll" (ByVal conversation As LongPtr, ByVal content As LongPtr, ByVal callsJson As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_conversation_set_reasoning_replay Lib "chatwire.dll" (ByVal conversation As LongPtr, ByVal replay As Long) As Long
    Public Declare PtrSafe Function chatwire_conversation_set_option Lib "chatwire.dll" (ByVal conversation As LongPtr, ByVal nameArg As LongPtr, ByVal jsonValue As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_conversation_set_option_unchecked Lib "chatwire.dll" (ByVal conversation As LongPtr, ByVal nameArg As LongPtr, ByVal jsonValue As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_conversation_add_tool Lib "chatwire.dll" (ByVal conversation As LongPtr, ByVal nameArg As LongPtr, ByVal description As LongPtr, ByVal parametersSchemaJson As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_conversation_add_custom_tool Lib "chatwire.dll" (ByVal conversation As LongPtr, ByVal nameArg As LongPtr, ByVal description As LongPtr, ByVal formatJson As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_extract_json Lib "chatwire.dll" (ByVal textArg As LongPtr, ByRef jsonOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_extract_ingredients Lib "chatwire.dll" (ByVal textArg As LongPtr, ByRef jsonOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_extract_ingredient_list Lib "chatwire.dll" (ByVal textArg As LongPtr, ByRef listOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_ingredients_len Lib "chatwire.dll" (ByVal list As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_ingredients_name Lib "chatwire.dll" (ByVal list As LongPtr, ByVal indexArg As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_ingredients_name_len Lib "chatwire.dll" (ByVal list As LongPtr, ByVal indexArg As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_ingredients_quantity Lib "chatwire.dll" (ByVal list As LongPtr, ByVal indexArg As LongPtr) As Double
    Public Declare PtrSafe Function chatwire_ingredients_quantity_out Lib "chatwire.dll" (ByVal list As LongPtr, ByVal indexArg As LongPtr, ByRef quantityOut As Double) As Long
    Public Declare PtrSafe Function chatwire_ingredients_unit Lib "chatwire.dll" (ByVal list As LongPtr, ByVal indexArg As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_ingredients_unit_len Lib "chatwire.dll" (ByVal list As LongPtr, ByVal indexArg As LongPtr) As LongPtr
    Public Declare PtrSafe Sub chatwire_ingredients_free Lib "chatwire.dll" (ByVal list As LongPtr)
    Public Declare PtrSafe Function chatwire_ingredients_prompt Lib "chatwire.dll" (ByVal textArg As LongPtr, ByRef promptOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_json_prompt Lib "chatwire.dll" (ByVal instruction As LongPtr, ByVal exampleJson As LongPtr, ByVal textArg As LongPtr, ByRef promptOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_ingredients_schema Lib "chatwire.dll" () As LongPtr
    Public Declare PtrSafe Function chatwire_client_set_timeout_ms_u32 Lib "chatwire.dll" (ByVal client As LongPtr, ByVal timeoutMs As Long) As Long
    Public Declare PtrSafe Function chatwire_client_set_connect_timeout_ms_u32 Lib "chatwire.dll" (ByVal client As LongPtr, ByVal timeoutMs As Long) As Long
    Public Declare PtrSafe Function chatwire_client_set_idle_timeout_ms_u32 Lib "chatwire.dll" (ByVal client As LongPtr, ByVal timeoutMs As Long) As Long
    Public Declare PtrSafe Function chatwire_client_set_limit_u32 Lib "chatwire.dll" (ByVal client As LongPtr, ByVal which As Long, ByVal bytes As Long) As Long
    Public Declare PtrSafe Function chatwire_conversation_set_token_budget_u32 Lib "chatwire.dll" (ByVal conversation As LongPtr, ByVal maxPromptTokens As Long) As Long
    Public Declare PtrSafe Function chatwire_reply_usage_u32 Lib "chatwire.dll" (ByVal reply As LongPtr, ByRef promptTokens As Long, ByRef completionTokens As Long, ByRef totalTokens As Long) As Long
    Public Declare PtrSafe Function chatwire_reply_usage_details_u32 Lib "chatwire.dll" (ByVal reply As LongPtr, ByRef cachedTokens As Long, ByRef reasoningTokens As Long) As Long
    Public Declare PtrSafe Function chatwire_batch_counts_u32 Lib "chatwire.dll" (ByVal batch As LongPtr, ByRef completed As Long, ByRef failed As Long, ByRef total As Long) As Long
    Public Declare PtrSafe Function chatwire_request_wait_text Lib "chatwire.dll" (ByVal request As LongPtr, ByRef textOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_request_wait_text_len Lib "chatwire.dll" (ByVal request As LongPtr, ByRef textOut As LongPtr, ByRef lenOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_list_models Lib "chatwire.dll" (ByVal client As LongPtr, ByRef modelsOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_models_len Lib "chatwire.dll" (ByVal models As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_models_id Lib "chatwire.dll" (ByVal models As LongPtr, ByVal indexArg As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_models_id_len Lib "chatwire.dll" (ByVal models As LongPtr, ByVal indexArg As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_models_owned_by Lib "chatwire.dll" (ByVal models As LongPtr, ByVal indexArg As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_models_owned_by_len Lib "chatwire.dll" (ByVal models As LongPtr, ByVal indexArg As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_models_json Lib "chatwire.dll" (ByVal models As LongPtr, ByVal indexArg As LongPtr, ByRef jsonOut As LongPtr) As Long
    Public Declare PtrSafe Sub chatwire_models_free Lib "chatwire.dll" (ByVal models As LongPtr)
    Public Declare PtrSafe Function chatwire_reply_content Lib "chatwire.dll" (ByVal reply As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_reply_content_len Lib "chatwire.dll" (ByVal reply As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_reply_finish_reason Lib "chatwire.dll" (ByVal reply As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_reply_finish_reason_len Lib "chatwire.dll" (ByVal reply As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_reply_request_id Lib "chatwire.dll" (ByVal reply As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_reply_json Lib "chatwire.dll" (ByVal reply As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_reply_tool_call_count Lib "chatwire.dll" (ByVal reply As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_reply_tool_call Lib "chatwire.dll" (ByVal reply As LongPtr, ByVal indexArg As LongPtr, ByRef idOut As LongPtr, ByRef nameOut As LongPtr, ByRef argumentsOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_reply_tool_call_len Lib "chatwire.dll" (ByVal reply As LongPtr, ByVal indexArg As LongPtr, ByRef idLen As LongPtr, ByRef nameLen As LongPtr, ByRef argumentsLen As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_reply_tool_call_type Lib "chatwire.dll" (ByVal reply As LongPtr, ByVal indexArg As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_reply_reasoning Lib "chatwire.dll" (ByVal reply As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_reply_reasoning_len Lib "chatwire.dll" (ByVal reply As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_reply_refusal Lib "chatwire.dll" (ByVal reply As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_reply_refusal_len Lib "chatwire.dll" (ByVal reply As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_reply_choice_count Lib "chatwire.dll" (ByVal reply As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_reply_choice_content Lib "chatwire.dll" (ByVal reply As LongPtr, ByVal indexArg As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_reply_choice_content_len Lib "chatwire.dll" (ByVal reply As LongPtr, ByVal indexArg As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_reply_header Lib "chatwire.dll" (ByVal reply As LongPtr, ByVal nameArg As LongPtr) As LongPtr
    Public Declare PtrSafe Sub chatwire_reply_free Lib "chatwire.dll" (ByVal reply As LongPtr)
    Public Declare PtrSafe Function chatwire_request_done Lib "chatwire.dll" (ByVal request As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_request_wait Lib "chatwire.dll" (ByVal request As LongPtr, ByRef replyOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_request_wait_reply Lib "chatwire.dll" (ByVal request As LongPtr, ByRef replyOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_request_cancel Lib "chatwire.dll" (ByVal request As LongPtr) As Long
    Public Declare PtrSafe Sub chatwire_request_free Lib "chatwire.dll" (ByVal request As LongPtr)
    Public Declare PtrSafe Function chatwire_request_fd Lib "chatwire.dll" (ByVal request As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_request_event Lib "chatwire.dll" (ByVal request As LongPtr) As LongPtr
    Public Declare PtrSafe Function chatwire_request_take_text Lib "chatwire.dll" (ByVal request As LongPtr, ByRef textOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_request_take_text_len Lib "chatwire.dll" (ByVal request As LongPtr, ByRef textOut As LongPtr, ByRef lenOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_send Lib "chatwire.dll" (ByVal client As LongPtr, ByVal conversation As LongPtr, ByRef replyOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_send_json Lib "chatwire.dll" (ByVal client As LongPtr, ByVal conversation As LongPtr, ByVal schemaJson As LongPtr, ByRef jsonOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_send_stream Lib "chatwire.dll" (ByVal client As LongPtr, ByVal conversation As LongPtr, ByVal onDelta As LongPtr, ByVal userdata As LongPtr, ByRef replyOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_send_reply Lib "chatwire.dll" (ByVal client As LongPtr, ByVal conversation As LongPtr, ByRef replyOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_send_stream_reply Lib "chatwire.dll" (ByVal client As LongPtr, ByVal conversation As LongPtr, ByVal onDelta As LongPtr, ByVal userdata As LongPtr, ByRef replyOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_send_stream_events Lib "chatwire.dll" (ByVal client As LongPtr, ByVal conversation As LongPtr, ByVal onEvent As LongPtr, ByVal userdata As LongPtr, ByRef replyOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_send_async Lib "chatwire.dll" (ByVal client As LongPtr, ByVal conversation As LongPtr, ByVal onDelta As LongPtr, ByVal onDone As LongPtr, ByVal userdata As LongPtr, ByRef requestOut As LongPtr) As Long
    Public Declare PtrSafe Function chatwire_status_str Lib "chatwire.dll" (ByVal status As Long) As LongPtr
    Public Declare PtrSafe Function chatwire_version Lib "chatwire.dll" () As LongPtr
    Public Declare PtrSafe Function chatwire_version_number Lib "chatwire.dll" () As Long
#Else
    Public Declare Function chatwire_batch_new Lib "chatwire.dll" (ByRef batchOut As Long) As Long
    Public Declare Function chatwire_batch_add Lib "chatwire.dll" (ByVal batch As Long, ByVal client As Long, ByVal customId As Long, ByVal conversation As Long) As Long
    Public Declare Function chatwire_batch_len Lib "chatwire.dll" (ByVal batch As Long) As Long
    Public Declare Function chatwire_batch_to_jsonl Lib "chatwire.dll" (ByVal batch As Long, ByRef jsonlOut As Long) As Long
    Public Declare Function chatwire_batch_submit Lib "chatwire.dll" (ByVal client As Long, ByVal batch As Long) As Long
    Public Declare Function chatwire_batch_open Lib "chatwire.dll" (ByVal batchId As Long, ByRef batchOut As Long) As Long
    Public Declare Function chatwire_batch_id Lib "chatwire.dll" (ByVal batch As Long) As Long
    Public Declare Function chatwire_batch_refresh Lib "chatwire.dll" (ByVal client As Long, ByVal batch As Long, ByRef stateOut As Long) As Long
    Public Declare Function chatwire_batch_errors Lib "chatwire.dll" (ByVal batch As Long, ByRef errorsOut As Long) As Long
    Public Declare Function chatwire_batch_cancel Lib "chatwire.dll" (ByVal client As Long, ByVal batch As Long) As Long
    Public Declare Function chatwire_batch_fetch_results Lib "chatwire.dll" (ByVal client As Long, ByVal batch As Long) As Long
    Public Declare Function chatwire_batch_read_results Lib "chatwire.dll" (ByVal batch As Long, ByVal outputJsonl As Long) As Long
    Public Declare Function chatwire_batch_apply Lib "chatwire.dll" (ByVal batch As Long, ByVal customId As Long, ByVal conversation As Long, ByRef replyOut As Long) As Long
    Public Declare Sub chatwire_batch_free Lib "chatwire.dll" (ByVal batch As Long)
    Public Declare Function chatwire_last_error Lib "chatwire.dll" () As Long
    Public Declare Function chatwire_last_http_status Lib "chatwire.dll" () As Long
    Public Declare Sub chatwire_string_free Lib "chatwire.dll" (ByVal s As Long)
    Public Declare Function chatwire_set_log_callback Lib "chatwire.dll" (ByVal callback As Long, ByVal maxLevel As Long, ByVal userdata As Long) As Long
    Public Declare Function chatwire_client_new Lib "chatwire.dll" (ByVal baseUrl As Long, ByVal apiKey As Long, ByRef clientOut As Long) As Long
    Public Declare Sub chatwire_client_free Lib "chatwire.dll" (ByVal client As Long)
    Public Declare Function chatwire_client_new_azure Lib "chatwire.dll" (ByVal endpoint As Long, ByVal deployment As Long, ByVal apiVersion As Long, ByVal apiKey As Long, ByRef clientOut As Long) As Long
    Public Declare Function chatwire_client_set_max_retries Lib "chatwire.dll" (ByVal client As Long, ByVal maxRetries As Long) As Long
    Public Declare Function chatwire_client_set_max_idle_connections Lib "chatwire.dll" (ByVal client As Long, ByVal maxIdleConnections As Long) As Long
    Public Declare Function chatwire_client_set_max_in_flight Lib "chatwire.dll" (ByVal client As Long, ByVal maxInFlight As Long) As Long
    Public Declare Function chatwire_client_set_worker_stack_size Lib "chatwire.dll" (ByVal client As Long, ByVal bytes As Long) As Long
    Public Declare Function chatwire_client_set_header Lib "chatwire.dll" (ByVal client As Long, ByVal nameArg As Long, ByVal valueArg As Long) As Long
    Public Declare Function chatwire_client_set_json_corrections Lib "chatwire.dll" (ByVal client As Long, ByVal corrections As Long) As Long
    Public Declare Function chatwire_client_set_schema_delivery Lib "chatwire.dll" (ByVal client As Long, ByVal delivery As Long) As Long
    Public Declare Function chatwire_client_set_stream_usage Lib "chatwire.dll" (ByVal client As Long, ByVal enabled As Long) As Long
    Public Declare Function chatwire_client_set_ca_file Lib "chatwire.dll" (ByVal client As Long, ByVal pemPath As Long) As Long
    Public Declare Function chatwire_client_set_client_certificate Lib "chatwire.dll" (ByVal client As Long, ByVal certPemFile As Long, ByVal keyPemFile As Long) As Long
    Public Declare Function chatwire_client_set_proxy Lib "chatwire.dll" (ByVal client As Long, ByVal proxyUrl As Long) As Long
    Public Declare Function chatwire_client_set_endpoint_url Lib "chatwire.dll" (ByVal client As Long, ByVal url As Long) As Long
    Public Declare Function chatwire_client_set_api Lib "chatwire.dll" (ByVal client As Long, ByVal api As Long) As Long
    Public Declare Function chatwire_client_set_auth Lib "chatwire.dll" (ByVal client As Long, ByVal auth As Long) As Long
    Public Declare Function chatwire_client_set_credential_callback Lib "chatwire.dll" (ByVal client As Long, ByVal callback As Long, ByVal userdata As Long) As Long
    Public Declare Function chatwire_conversation_new Lib "chatwire.dll" (ByVal model As Long, ByRef conversationOut As Long) As Long
    Public Declare Function chatwire_conversation_to_json Lib "chatwire.dll" (ByVal conversation As Long, ByRef jsonOut As Long) As Long
    Public Declare Function chatwire_conversation_from_json Lib "chatwire.dll" (ByVal json As Long, ByRef conversationOut As Long) As Long
    Public Declare Sub chatwire_conversation_free Lib "chatwire.dll" (ByVal conversation As Long)
    Public Declare Function chatwire_conversation_len Lib "chatwire.dll" (ByVal conversation As Long) As Long
    Public Declare Function chatwire_conversation_role Lib "chatwire.dll" (ByVal conversation As Long, ByVal indexArg As Long) As Long
    Public Declare Function chatwire_conversation_content Lib "chatwire.dll" (ByVal conversation As Long, ByVal indexArg As Long) As Long
    Public Declare Function chatwire_conversation_content_len Lib "chatwire.dll" (ByVal conversation As Long, ByVal indexArg As Long) As Long
    Public Declare Function chatwire_conversation_reasoning Lib "chatwire.dll" (ByVal conversation As Long, ByVal indexArg As Long) As Long
    Public Declare Function chatwire_conversation_reasoning_len Lib "chatwire.dll" (ByVal conversation As Long, ByVal indexArg As Long) As Long
    Public Declare Function chatwire_conversation_set_system Lib "chatwire.dll" (ByVal conversation As Long, ByVal textArg As Long) As Long
    Public Declare Function chatwire_conversation_append Lib "chatwire.dll" (ByVal conversation As Long, ByVal role As Long, ByVal content As Long) As Long
    Public Declare Function chatwire_conversation_truncate Lib "chatwire.dll" (ByVal conversation As Long, ByVal lenArg As Long) As Long
    Public Declare Function chatwire_conversation_append_tool_result Lib "chatwire.dll" (ByVal conversation As Long, ByVal toolCallId As Long, ByVal content As Long) As Long
    Public Declare Function chatwire_conversation_append_user_image Lib "chatwire.dll" (ByVal conversation As Long, ByVal textArg As Long, ByVal image As Long) As Long
    Public Declare Function chatwire_conversation_append_user_file Lib "chatwire.dll" (ByVal conversation As Long, ByVal textArg As Long, ByVal fileArg As Long) As Long
    Public Declare Function chatwire_conversation_last_dropped Lib "chatwire.dll" (ByVal conversation As Long) As Long
    Public Declare Function chatwire_conversation_remove Lib "chatwire.dll" (ByVal conversation As Long, ByVal indexArg As Long, ByVal countArg As Long) As Long
    Public Declare Function chatwire_conversation_append_tool_calls Lib "chatwire.dll" (ByVal conversation As Long, ByVal content As Long, ByVal callsJson As Long) As Long
    Public Declare Function chatwire_conversation_set_reasoning_replay Lib "chatwire.dll" (ByVal conversation As Long, ByVal replay As Long) As Long
    Public Declare Function chatwire_conversation_set_option Lib "chatwire.dll" (ByVal conversation As Long, ByVal nameArg As Long, ByVal jsonValue As Long) As Long
    Public Declare Function chatwire_conversation_set_option_unchecked Lib "chatwire.dll" (ByVal conversation As Long, ByVal nameArg As Long, ByVal jsonValue As Long) As Long
    Public Declare Function chatwire_conversation_add_tool Lib "chatwire.dll" (ByVal conversation As Long, ByVal nameArg As Long, ByVal description As Long, ByVal parametersSchemaJson As Long) As Long
    Public Declare Function chatwire_conversation_add_custom_tool Lib "chatwire.dll" (ByVal conversation As Long, ByVal nameArg As Long, ByVal description As Long, ByVal formatJson As Long) As Long
    Public Declare Function chatwire_extract_json Lib "chatwire.dll" (ByVal textArg As Long, ByRef jsonOut As Long) As Long
    Public Declare Function chatwire_extract_ingredients Lib "chatwire.dll" (ByVal textArg As Long, ByRef jsonOut As Long) As Long
    Public Declare Function chatwire_extract_ingredient_list Lib "chatwire.dll" (ByVal textArg As Long, ByRef listOut As Long) As Long
    Public Declare Function chatwire_ingredients_len Lib "chatwire.dll" (ByVal list As Long) As Long
    Public Declare Function chatwire_ingredients_name Lib "chatwire.dll" (ByVal list As Long, ByVal indexArg As Long) As Long
    Public Declare Function chatwire_ingredients_name_len Lib "chatwire.dll" (ByVal list As Long, ByVal indexArg As Long) As Long
    Public Declare Function chatwire_ingredients_quantity Lib "chatwire.dll" (ByVal list As Long, ByVal indexArg As Long) As Double
    Public Declare Function chatwire_ingredients_quantity_out Lib "chatwire.dll" (ByVal list As Long, ByVal indexArg As Long, ByRef quantityOut As Double) As Long
    Public Declare Function chatwire_ingredients_unit Lib "chatwire.dll" (ByVal list As Long, ByVal indexArg As Long) As Long
    Public Declare Function chatwire_ingredients_unit_len Lib "chatwire.dll" (ByVal list As Long, ByVal indexArg As Long) As Long
    Public Declare Sub chatwire_ingredients_free Lib "chatwire.dll" (ByVal list As Long)
    Public Declare Function chatwire_ingredients_prompt Lib "chatwire.dll" (ByVal textArg As Long, ByRef promptOut As Long) As Long
    Public Declare Function chatwire_json_prompt Lib "chatwire.dll" (ByVal instruction As Long, ByVal exampleJson As Long, ByVal textArg As Long, ByRef promptOut As Long) As Long
    Public Declare Function chatwire_ingredients_schema Lib "chatwire.dll" () As Long
    Public Declare Function chatwire_client_set_timeout_ms_u32 Lib "chatwire.dll" (ByVal client As Long, ByVal timeoutMs As Long) As Long
    Public Declare Function chatwire_client_set_connect_timeout_ms_u32 Lib "chatwire.dll" (ByVal client As Long, ByVal timeoutMs As Long) As Long
    Public Declare Function chatwire_client_set_idle_timeout_ms_u32 Lib "chatwire.dll" (ByVal client As Long, ByVal timeoutMs As Long) As Long
    Public Declare Function chatwire_client_set_limit_u32 Lib "chatwire.dll" (ByVal client As Long, ByVal which As Long, ByVal bytes As Long) As Long
    Public Declare Function chatwire_conversation_set_token_budget_u32 Lib "chatwire.dll" (ByVal conversation As Long, ByVal maxPromptTokens As Long) As Long
    Public Declare Function chatwire_reply_usage_u32 Lib "chatwire.dll" (ByVal reply As Long, ByRef promptTokens As Long, ByRef completionTokens As Long, ByRef totalTokens As Long) As Long
    Public Declare Function chatwire_reply_usage_details_u32 Lib "chatwire.dll" (ByVal reply As Long, ByRef cachedTokens As Long, ByRef reasoningTokens As Long) As Long
    Public Declare Function chatwire_batch_counts_u32 Lib "chatwire.dll" (ByVal batch As Long, ByRef completed As Long, ByRef failed As Long, ByRef total As Long) As Long
    Public Declare Function chatwire_request_wait_text Lib "chatwire.dll" (ByVal request As Long, ByRef textOut As Long) As Long
    Public Declare Function chatwire_request_wait_text_len Lib "chatwire.dll" (ByVal request As Long, ByRef textOut As Long, ByRef lenOut As Long) As Long
    Public Declare Function chatwire_list_models Lib "chatwire.dll" (ByVal client As Long, ByRef modelsOut As Long) As Long
    Public Declare Function chatwire_models_len Lib "chatwire.dll" (ByVal models As Long) As Long
    Public Declare Function chatwire_models_id Lib "chatwire.dll" (ByVal models As Long, ByVal indexArg As Long) As Long
    Public Declare Function chatwire_models_id_len Lib "chatwire.dll" (ByVal models As Long, ByVal indexArg As Long) As Long
    Public Declare Function chatwire_models_owned_by Lib "chatwire.dll" (ByVal models As Long, ByVal indexArg As Long) As Long
    Public Declare Function chatwire_models_owned_by_len Lib "chatwire.dll" (ByVal models As Long, ByVal indexArg As Long) As Long
    Public Declare Function chatwire_models_json Lib "chatwire.dll" (ByVal models As Long, ByVal indexArg As Long, ByRef jsonOut As Long) As Long
    Public Declare Sub chatwire_models_free Lib "chatwire.dll" (ByVal models As Long)
    Public Declare Function chatwire_reply_content Lib "chatwire.dll" (ByVal reply As Long) As Long
    Public Declare Function chatwire_reply_content_len Lib "chatwire.dll" (ByVal reply As Long) As Long
    Public Declare Function chatwire_reply_finish_reason Lib "chatwire.dll" (ByVal reply As Long) As Long
    Public Declare Function chatwire_reply_finish_reason_len Lib "chatwire.dll" (ByVal reply As Long) As Long
    Public Declare Function chatwire_reply_request_id Lib "chatwire.dll" (ByVal reply As Long) As Long
    Public Declare Function chatwire_reply_json Lib "chatwire.dll" (ByVal reply As Long) As Long
    Public Declare Function chatwire_reply_tool_call_count Lib "chatwire.dll" (ByVal reply As Long) As Long
    Public Declare Function chatwire_reply_tool_call Lib "chatwire.dll" (ByVal reply As Long, ByVal indexArg As Long, ByRef idOut As Long, ByRef nameOut As Long, ByRef argumentsOut As Long) As Long
    Public Declare Function chatwire_reply_tool_call_len Lib "chatwire.dll" (ByVal reply As Long, ByVal indexArg As Long, ByRef idLen As Long, ByRef nameLen As Long, ByRef argumentsLen As Long) As Long
    Public Declare Function chatwire_reply_tool_call_type Lib "chatwire.dll" (ByVal reply As Long, ByVal indexArg As Long) As Long
    Public Declare Function chatwire_reply_reasoning Lib "chatwire.dll" (ByVal reply As Long) As Long
    Public Declare Function chatwire_reply_reasoning_len Lib "chatwire.dll" (ByVal reply As Long) As Long
    Public Declare Function chatwire_reply_refusal Lib "chatwire.dll" (ByVal reply As Long) As Long
    Public Declare Function chatwire_reply_refusal_len Lib "chatwire.dll" (ByVal reply As Long) As Long
    Public Declare Function chatwire_reply_choice_count Lib "chatwire.dll" (ByVal reply As Long) As Long
    Public Declare Function chatwire_reply_choice_content Lib "chatwire.dll" (ByVal reply As Long, ByVal indexArg As Long) As Long
    Public Declare Function chatwire_reply_choice_content_len Lib "chatwire.dll" (ByVal reply As Long, ByVal indexArg As Long) As Long
    Public Declare Function chatwire_reply_header Lib "chatwire.dll" (ByVal reply As Long, ByVal nameArg As Long) As Long
    Public Declare Sub chatwire_reply_free Lib "chatwire.dll" (ByVal reply As Long)
    Public Declare Function chatwire_request_done Lib "chatwire.dll" (ByVal request As Long) As Long
    Public Declare Function chatwire_request_wait Lib "chatwire.dll" (ByVal request As Long, ByRef replyOut As Long) As Long
    Public Declare Function chatwire_request_wait_reply Lib "chatwire.dll" (ByVal request As Long, ByRef replyOut As Long) As Long
    Public Declare Function chatwire_request_cancel Lib "chatwire.dll" (ByVal request As Long) As Long
    Public Declare Sub chatwire_request_free Lib "chatwire.dll" (ByVal request As Long)
    Public Declare Function chatwire_request_fd Lib "chatwire.dll" (ByVal request As Long) As Long
    Public Declare Function chatwire_request_event Lib "chatwire.dll" (ByVal request As Long) As Long
    Public Declare Function chatwire_request_take_text Lib "chatwire.dll" (ByVal request As Long, ByRef textOut As Long) As Long
    Public Declare Function chatwire_request_take_text_len Lib "chatwire.dll" (ByVal request As Long, ByRef textOut As Long, ByRef lenOut As Long) As Long
    Public Declare Function chatwire_send Lib "chatwire.dll" (ByVal client As Long, ByVal conversation As Long, ByRef replyOut As Long) As Long
    Public Declare Function chatwire_send_json Lib "chatwire.dll" (ByVal client As Long, ByVal conversation As Long, ByVal schemaJson As Long, ByRef jsonOut As Long) As Long
    Public Declare Function chatwire_send_stream Lib "chatwire.dll" (ByVal client As Long, ByVal conversation As Long, ByVal onDelta As Long, ByVal userdata As Long, ByRef replyOut As Long) As Long
    Public Declare Function chatwire_send_reply Lib "chatwire.dll" (ByVal client As Long, ByVal conversation As Long, ByRef replyOut As Long) As Long
    Public Declare Function chatwire_send_stream_reply Lib "chatwire.dll" (ByVal client As Long, ByVal conversation As Long, ByVal onDelta As Long, ByVal userdata As Long, ByRef replyOut As Long) As Long
    Public Declare Function chatwire_send_stream_events Lib "chatwire.dll" (ByVal client As Long, ByVal conversation As Long, ByVal onEvent As Long, ByVal userdata As Long, ByRef replyOut As Long) As Long
    Public Declare Function chatwire_send_async Lib "chatwire.dll" (ByVal client As Long, ByVal conversation As Long, ByVal onDelta As Long, ByVal onDone As Long, ByVal userdata As Long, ByRef requestOut As Long) As Long
    Public Declare Function chatwire_status_str Lib "chatwire.dll" (ByVal status As Long) As Long
    Public Declare Function chatwire_version Lib "chatwire.dll" () As Long
    Public Declare Function chatwire_version_number Lib "chatwire.dll" () As Long
#End If

' ---------------------------------------------------------------------------
' UTF-8 <-> VB strings. chatwire takes and gives UTF-8; VB strings are UTF-16.

Private Const CP_UTF8 As Long = 65001

#If VBA7 Then
    Private Declare PtrSafe Function MultiByteToWideChar Lib "kernel32" (ByVal codePage As Long, ByVal flags As Long, ByVal utf8 As LongPtr, ByVal utf8Bytes As Long, ByVal wide As LongPtr, ByVal wideChars As Long) As Long
    Private Declare PtrSafe Function WideCharToMultiByte Lib "kernel32" (ByVal codePage As Long, ByVal flags As Long, ByVal wide As LongPtr, ByVal wideChars As Long, ByVal utf8 As LongPtr, ByVal utf8Bytes As Long, ByVal defaultChar As LongPtr, ByVal usedDefaultChar As LongPtr) As Long
    Private Declare PtrSafe Function lstrlenA Lib "kernel32" (ByVal text As LongPtr) As Long
#Else
    Private Declare Function MultiByteToWideChar Lib "kernel32" (ByVal codePage As Long, ByVal flags As Long, ByVal utf8 As Long, ByVal utf8Bytes As Long, ByVal wide As Long, ByVal wideChars As Long) As Long
    Private Declare Function WideCharToMultiByte Lib "kernel32" (ByVal codePage As Long, ByVal flags As Long, ByVal wide As Long, ByVal wideChars As Long, ByVal utf8 As Long, ByVal utf8Bytes As Long, ByVal defaultChar As Long, ByVal usedDefaultChar As Long) As Long
    Private Declare Function lstrlenA Lib "kernel32" (ByVal text As Long) As Long
#End If

#If VBA7 Then
    Private Declare PtrSafe Function LoadLibraryW Lib "kernel32" (ByVal fileName As LongPtr) As LongPtr
#Else
    Private Declare Function LoadLibraryW Lib "kernel32" (ByVal fileName As Long) As Long
#End If

' Loads chatwire.dll from its full path, once before the first chatwire call,
' so that the Declares find it wherever it is: LoadChatwire(ThisWorkbook.Path & "\chatwire.dll").
' False when Windows cannot load it (missing, or the other bitness than Office's).
Public Function LoadChatwire(ByVal fullPath As String) As Boolean
    LoadChatwire = LoadLibraryW(StrPtr(fullPath)) <> 0
End Function

' A VB string as NUL-terminated UTF-8, for a text parameter:
'   Dim question() As Byte: question = Utf8Z("Grüße")
'   status = chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, VarPtr(question(0)))
' Keep the array in a variable until the call returns.
Public Function Utf8Z(ByVal text As String) As Byte()
    Dim bytes() As Byte, size As Long
    size = WideCharToMultiByte(CP_UTF8, 0, StrPtr(text), Len(text), 0, 0, 0, 0)
    ReDim bytes(0 To size) ' one more, zeroed: the NUL
    If size > 0 Then WideCharToMultiByte CP_UTF8, 0, StrPtr(text), Len(text), VarPtr(bytes(0)), size, 0, 0
    Utf8Z = bytes
End Function

' The UTF-8 text at a pointer chatwire gave, as a VB string: up to its NUL,
' or `length` bytes (a callback's delta and len). "" for a NULL pointer.
#If VBA7 Then
Public Function FromUtf8(ByVal pointer As LongPtr, Optional ByVal length As Long = -1) As String
#Else
Public Function FromUtf8(ByVal pointer As Long, Optional ByVal length As Long = -1) As String
#End If
    Dim chars As Long, text As String
    If pointer = 0 Then Exit Function
    If length < 0 Then length = lstrlenA(pointer)
    If length = 0 Then Exit Function
    chars = MultiByteToWideChar(CP_UTF8, 0, pointer, length, 0, 0)
    text = String$(chars, vbNullChar)
    MultiByteToWideChar CP_UTF8, 0, pointer, length, StrPtr(text), chars
    FromUtf8 = text
End Function

' A string chatwire handed out (a `char **` out-parameter), as a VB string;
' frees it with chatwire_string_free and sets the pointer to 0.
#If VBA7 Then
Public Function TakeString(ByRef pointer As LongPtr) As String
#Else
Public Function TakeString(ByRef pointer As Long) As String
#End If
    TakeString = FromUtf8(pointer)
    chatwire_string_free pointer
    pointer = 0
End Function

' chatwire_last_error() as a VB string: read it at once after the failing
' call, before any other chatwire call on this thread.
Public Function LastError() As String
    LastError = FromUtf8(chatwire_last_error())
End Function
