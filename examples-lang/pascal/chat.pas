{ chatwire from Free Pascal or Delphi, through the chatwire unit.

    fpc -Fl/path/to/lib chat.pas && OPENAI_API_KEY=... ./chat BASE_URL [MODEL]

  A system message and a question whose reply is streamed through a
  callback, a second turn, an error read through chatwire_last_error(), and
  everything freed. docs/languages.md explains each step. }
program chat;

{$IFDEF FPC}{$MODE DELPHI}{$CODEPAGE UTF8}{$ENDIF}

uses
  SysUtils, chatwire;

type
  { What the callback gets through its userdata pointer. }
  TStreamed = record
    Text: UTF8String;
    Pieces: Integer;
  end;
  PStreamed = ^TStreamed;

  EChatwire = class(Exception)
    Status: Integer;
  end;

{ Raises the status with chatwire_last_error(), read at once: the text lasts
  only until the next chatwire call on this thread. }
procedure Check(status: Integer);
var
  error: EChatwire;
begin
  if status <> CHATWIRE_OK then
  begin
    error := EChatwire.Create(string(UTF8String(chatwire_last_error)));
    error.Status := status;
    raise error;
  end;
end;

{ A plain function (not a method), so that its address is a C function
  pointer; no exception may leave it. }
function OnDelta(userdata: Pointer; delta: PAnsiChar; len: TChatwireSize): Integer;
  {$IFDEF MSWINDOWS}stdcall{$ELSE}cdecl{$ENDIF};
var
  piece: UTF8String;
begin
  try
    SetString(piece, delta, len);
    PStreamed(userdata)^.Text := PStreamed(userdata)^.Text + piece;
    Inc(PStreamed(userdata)^.Pieces);
    Result := 0;
  except
    Result := 1;
  end;
end;

var
  client: PChatwireClient = nil;
  conversation: PChatwireConversation = nil;
  reply: PAnsiChar;
  streamed: TStreamed;
  baseUrl, model: UTF8String;
  question: UTF8String;
begin
  baseUrl := UTF8String(ParamStr(1));
  model := 'mock';
  if ParamCount > 1 then
    model := UTF8String(ParamStr(2));
  WriteLn('version: ', chatwire_version);
  try
    Check(chatwire_client_new(PAnsiChar(baseUrl), nil, client)); { nil key: $OPENAI_API_KEY }
    Check(chatwire_conversation_new(PAnsiChar(model), conversation));
    Check(chatwire_conversation_set_system(conversation, 'Answer in one line.'));
    question := 'Grüße! What is 2 + 2?';
    Check(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, PAnsiChar(question)));

    streamed.Text := '';
    streamed.Pieces := 0;
    Check(chatwire_send_stream(client, conversation, OnDelta, @streamed, reply));
    WriteLn('stream: ', streamed.Text);
    WriteLn('pieces: ', streamed.Pieces);
    WriteLn('reply: ', ChatwireTakeString(reply));

    question := 'And 3 + 3? Ça va?';
    Check(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, PAnsiChar(question)));
    Check(chatwire_send(client, conversation, reply));
    WriteLn('second: ', ChatwireTakeString(reply));
    WriteLn('messages: ', chatwire_conversation_len(conversation));

    { The last message is the assistant's: sending again is refused. }
    try
      Check(chatwire_send(client, conversation, reply));
      WriteLn('error: none');
    except
      on error: EChatwire do
        WriteLn('error: ', error.Status, ' ', UTF8String(error.Message));
    end;
  finally
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
  end;
  WriteLn('done');
end.
