{ chatwire for Free Pascal and Delphi: the declarations of include/chatwire.h
  that the example uses, in the form of the rest.

  Every function and callback type is stdcall on 32-bit Windows and cdecl
  everywhere else (CHATWIRE_CALL in the header); on 64-bit Windows Delphi
  and Free Pascal ignore the difference. Strings go in as PAnsiChar of a
  UTF8String; a PAnsiChar that chatwire hands out as `char *` is freed with
  chatwire_string_free. }
unit chatwire;

{$IFDEF FPC}{$MODE DELPHI}{$ENDIF}

interface

const
{$IFDEF MSWINDOWS}
  ChatwireLib = 'chatwire.dll';
{$ELSE}
  ChatwireLib = 'chatwire';
{$ENDIF}

  CHATWIRE_OK = 0;
  CHATWIRE_ERR_INVALID_CONVERSATION = 4;
  CHATWIRE_ROLE_SYSTEM = 0;
  CHATWIRE_ROLE_USER = 1;
  CHATWIRE_ROLE_ASSISTANT = 2;

type
  { Opaque handles. }
  PChatwireClient = Pointer;
  PChatwireConversation = Pointer;
  { size_t }
  TChatwireSize = NativeUInt;
  { int (*)(void *userdata, const char *delta, size_t len) }
  TChatwireDeltaCallback = function(userdata: Pointer; delta: PAnsiChar; len: TChatwireSize): Integer;
    {$IFDEF MSWINDOWS}stdcall{$ELSE}cdecl{$ENDIF};

function chatwire_version: PAnsiChar;
  {$IFDEF MSWINDOWS}stdcall{$ELSE}cdecl{$ENDIF}; external ChatwireLib;
function chatwire_last_error: PAnsiChar;
  {$IFDEF MSWINDOWS}stdcall{$ELSE}cdecl{$ENDIF}; external ChatwireLib;
function chatwire_status_str(status: Integer): PAnsiChar;
  {$IFDEF MSWINDOWS}stdcall{$ELSE}cdecl{$ENDIF}; external ChatwireLib;
function chatwire_client_new(base_url, api_key: PAnsiChar; out client: PChatwireClient): Integer;
  {$IFDEF MSWINDOWS}stdcall{$ELSE}cdecl{$ENDIF}; external ChatwireLib;
procedure chatwire_client_free(client: PChatwireClient);
  {$IFDEF MSWINDOWS}stdcall{$ELSE}cdecl{$ENDIF}; external ChatwireLib;
function chatwire_conversation_new(model: PAnsiChar; out conversation: PChatwireConversation): Integer;
  {$IFDEF MSWINDOWS}stdcall{$ELSE}cdecl{$ENDIF}; external ChatwireLib;
function chatwire_conversation_set_system(conversation: PChatwireConversation; text: PAnsiChar): Integer;
  {$IFDEF MSWINDOWS}stdcall{$ELSE}cdecl{$ENDIF}; external ChatwireLib;
function chatwire_conversation_append(conversation: PChatwireConversation; role: Integer; content: PAnsiChar): Integer;
  {$IFDEF MSWINDOWS}stdcall{$ELSE}cdecl{$ENDIF}; external ChatwireLib;
function chatwire_conversation_len(conversation: PChatwireConversation): TChatwireSize;
  {$IFDEF MSWINDOWS}stdcall{$ELSE}cdecl{$ENDIF}; external ChatwireLib;
procedure chatwire_conversation_free(conversation: PChatwireConversation);
  {$IFDEF MSWINDOWS}stdcall{$ELSE}cdecl{$ENDIF}; external ChatwireLib;
function chatwire_send(client: PChatwireClient; conversation: PChatwireConversation; out reply: PAnsiChar): Integer;
  {$IFDEF MSWINDOWS}stdcall{$ELSE}cdecl{$ENDIF}; external ChatwireLib;
function chatwire_send_stream(client: PChatwireClient; conversation: PChatwireConversation;
  on_delta: TChatwireDeltaCallback; userdata: Pointer; out reply: PAnsiChar): Integer;
  {$IFDEF MSWINDOWS}stdcall{$ELSE}cdecl{$ENDIF}; external ChatwireLib;
procedure chatwire_string_free(s: PAnsiChar);
  {$IFDEF MSWINDOWS}stdcall{$ELSE}cdecl{$ENDIF}; external ChatwireLib;

{ A string chatwire handed out, copied into a UTF8String, then freed. }
function ChatwireTakeString(s: PAnsiChar): UTF8String;

implementation

function ChatwireTakeString(s: PAnsiChar): UTF8String;
begin
  try
    Result := UTF8String(s);
  finally
    chatwire_string_free(s);
  end;
end;

end.
