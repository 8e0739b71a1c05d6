       >>SOURCE FORMAT IS FREE
*> chatwire from GnuCOBOL, through plain CALL statements.
*>
*>   cobc -x chat.cob -L/path/to/lib -lchatwire && OPENAI_API_KEY=... ./chat BASE_URL [MODEL]
*>
*> A system message and a question, a second turn, an error read through
*> chatwire_last_error(), an ingredient's quantity (a C double, which
*> GnuCOBOL receives through an out-parameter), and everything freed. COBOL cannot hand C a
*> callback, so the first reply is streamed without one: the request runs
*> in the background and chatwire_request_wait_text() gives its text piece
*> by piece in a plain loop. docs/languages.md explains each step.
*>
*> The CALLs are dynamic (cobc's default), which is what lets a function
*> return a pointer: GnuCOBOL takes any other RETURNING value as an int.
*> On 32-bit Windows every chatwire function is __stdcall: write
*> CALL STDCALL "chatwire_..." there.
IDENTIFICATION DIVISION.
PROGRAM-ID. chat.

DATA DIVISION.
WORKING-STORAGE SECTION.
*> Handles and strings are C pointers; NULL is a pointer set to NULL
*> (never BY VALUE 0, which passes a 4-byte int).
01 null-ptr           USAGE POINTER VALUE NULL.
01 client             USAGE POINTER VALUE NULL.
01 conversation       USAGE POINTER VALUE NULL.
01 request            USAGE POINTER VALUE NULL.
01 ingredients        USAGE POINTER VALUE NULL.
01 text-ptr           USAGE POINTER VALUE NULL.
*> chatwire_status, roles and the other ints of the header.
01 status-code        USAGE BINARY-LONG SIGNED.
01 role-user          USAGE BINARY-LONG SIGNED VALUE 1.
01 chatwire-ok        USAGE BINARY-LONG SIGNED VALUE 0.
01 c-len              USAGE BINARY-LONG SIGNED.
*> size_t, for an index.
01 first-index        USAGE BINARY-C-LONG UNSIGNED VALUE 0.
*> A C double: COMP-2. CALL ... RETURNING reads only an int or a pointer,
*> so a double comes through the _out form of its getter.
01 quantity           USAGE COMP-2.
01 shown-quantity     PIC Z(5)9.99.
01 message-count      USAGE BINARY-LONG SIGNED.
01 pieces             USAGE BINARY-LONG SIGNED VALUE 0.
01 shown-number       PIC -(9)9.
01 base-url           PIC X(1024).
01 model              PIC X(256).
01 z-base-url         PIC X(1025).
01 z-model            PIC X(257).
01 streamed           PIC X(4096).
01 stream-pos         USAGE BINARY-LONG SIGNED VALUE 1.
01 stream-state       PIC X VALUE "N".
   88 stream-ended    VALUE "Y".

LINKAGE SECTION.
*> A view of the text at text-ptr: its first c-len bytes.
01 c-text             PIC X(1048576).

PROCEDURE DIVISION.
MAIN.
    ACCEPT base-url FROM ARGUMENT-VALUE
    ACCEPT model FROM ARGUMENT-VALUE
    IF model = SPACES
        MOVE "mock" TO model
    END-IF
    *> Text goes in NUL-terminated: Z"literals", or a copy ending in X"00".
    STRING FUNCTION TRIM(base-url) X"00" DELIMITED BY SIZE INTO z-base-url
    STRING FUNCTION TRIM(model) X"00" DELIMITED BY SIZE INTO z-model

    CALL "chatwire_version" RETURNING text-ptr
    PERFORM POINT-AT-TEXT
    DISPLAY "version: " c-text(1:c-len)

    *> NULL key: $OPENAI_API_KEY, else ./.env.
    CALL "chatwire_client_new" USING BY REFERENCE z-base-url BY VALUE null-ptr
        BY REFERENCE client RETURNING status-code
    PERFORM CHECK-STATUS
    CALL "chatwire_conversation_new" USING BY REFERENCE z-model
        BY REFERENCE conversation RETURNING status-code
    PERFORM CHECK-STATUS
    CALL "chatwire_conversation_set_system" USING BY VALUE conversation
        BY CONTENT Z"Answer in one line." RETURNING status-code
    PERFORM CHECK-STATUS
    *> This source is UTF-8, so the literal's bytes are too.
    CALL "chatwire_conversation_append" USING BY VALUE conversation
        BY VALUE role-user BY CONTENT Z"Grüße! What is 2 + 2?" RETURNING status-code
    PERFORM CHECK-STATUS

    *> The first reply, streamed: a background request without callbacks,
    *> read piece by piece until chatwire_request_wait_text gives "".
    CALL "chatwire_send_async" USING BY VALUE client BY VALUE conversation
        BY VALUE null-ptr BY VALUE null-ptr BY VALUE null-ptr
        BY REFERENCE request RETURNING status-code
    PERFORM CHECK-STATUS
    PERFORM UNTIL stream-ended
        CALL "chatwire_request_wait_text" USING BY VALUE request
            BY REFERENCE text-ptr RETURNING status-code
        PERFORM CHECK-STATUS
        PERFORM POINT-AT-TEXT
        IF c-len = 0
            SET stream-ended TO TRUE
        ELSE
            STRING c-text(1:c-len) DELIMITED BY SIZE INTO streamed
                WITH POINTER stream-pos
            ADD 1 TO pieces
        END-IF
        CALL "chatwire_string_free" USING BY VALUE text-ptr
    END-PERFORM
    DISPLAY "stream: " streamed(1:stream-pos - 1)
    MOVE pieces TO shown-number
    DISPLAY "pieces: " FUNCTION TRIM(shown-number)
    *> The wait gives the whole reply and appends it to the conversation.
    CALL "chatwire_request_wait" USING BY VALUE request
        BY REFERENCE text-ptr RETURNING status-code
    PERFORM CHECK-STATUS
    PERFORM POINT-AT-TEXT
    DISPLAY "reply: " c-text(1:c-len)
    CALL "chatwire_string_free" USING BY VALUE text-ptr
    CALL "chatwire_request_free" USING BY VALUE request
    SET request TO NULL

    *> The second turn, whole.
    CALL "chatwire_conversation_append" USING BY VALUE conversation
        BY VALUE role-user BY CONTENT Z"And 3 + 3? Ça va?" RETURNING status-code
    PERFORM CHECK-STATUS
    CALL "chatwire_send" USING BY VALUE client BY VALUE conversation
        BY REFERENCE text-ptr RETURNING status-code
    PERFORM CHECK-STATUS
    PERFORM POINT-AT-TEXT
    DISPLAY "second: " c-text(1:c-len)
    CALL "chatwire_string_free" USING BY VALUE text-ptr
    CALL "chatwire_conversation_len" USING BY VALUE conversation
        RETURNING message-count
    MOVE message-count TO shown-number
    DISPLAY "messages: " FUNCTION TRIM(shown-number)

    *> The last message is the assistant's: sending again is refused.
    CALL "chatwire_send" USING BY VALUE client BY VALUE conversation
        BY REFERENCE text-ptr RETURNING status-code
    IF status-code = chatwire-ok
        DISPLAY "error: none"
        CALL "chatwire_string_free" USING BY VALUE text-ptr
    ELSE
        *> Read at once: the text lasts until the next chatwire call.
        CALL "chatwire_last_error" RETURNING text-ptr
        PERFORM POINT-AT-TEXT
        MOVE status-code TO shown-number
        DISPLAY "error: " FUNCTION TRIM(shown-number) " " c-text(1:c-len)
    END-IF

    *> An ingredient list read from a model's text; the first quantity.
    CALL "chatwire_extract_ingredient_list" USING
        BY CONTENT Z'[{"ingredient": "flour", "quantity": 1 1/2, "unit": "cup"}]'
        BY REFERENCE ingredients RETURNING status-code
    PERFORM CHECK-STATUS
    CALL "chatwire_ingredients_name" USING BY VALUE ingredients
        BY VALUE first-index RETURNING text-ptr
    PERFORM POINT-AT-TEXT
    CALL "chatwire_ingredients_quantity_out" USING BY VALUE ingredients
        BY VALUE first-index BY REFERENCE quantity RETURNING status-code
    PERFORM CHECK-STATUS
    MOVE quantity TO shown-quantity
    DISPLAY "ingredient: " c-text(1:c-len) " " FUNCTION TRIM(shown-quantity)

    PERFORM FREE-ALL
    DISPLAY "done"
    *> A CALL without RETURNING leaves the C function's return value in
    *> RETURN-CODE, the program's exit status: set it.
    MOVE 0 TO RETURN-CODE
    STOP RUN.

*> Points c-text at the NUL-terminated text at text-ptr; c-len its length.
POINT-AT-TEXT.
    CALL "strlen" USING BY VALUE text-ptr RETURNING c-len
    SET ADDRESS OF c-text TO text-ptr.

*> Stops with the status and chatwire_last_error() after a failure.
CHECK-STATUS.
    IF status-code NOT = chatwire-ok
        CALL "chatwire_last_error" RETURNING text-ptr
        PERFORM POINT-AT-TEXT
        MOVE status-code TO shown-number
        IF c-len > 0
            DISPLAY "chatwire failed: " FUNCTION TRIM(shown-number) " " c-text(1:c-len)
        ELSE
            DISPLAY "chatwire failed: " FUNCTION TRIM(shown-number)
        END-IF
        PERFORM FREE-ALL
        MOVE 1 TO RETURN-CODE
        STOP RUN
    END-IF.

*> Every free function takes NULL; a request goes before its conversation.
FREE-ALL.
    CALL "chatwire_ingredients_free" USING BY VALUE ingredients
    CALL "chatwire_request_free" USING BY VALUE request
    CALL "chatwire_conversation_free" USING BY VALUE conversation
    CALL "chatwire_client_free" USING BY VALUE client.
