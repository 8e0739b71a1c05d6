// chatwire from C#, through P/Invoke (Mono, .NET Framework, .NET 5 and later).
//
//   mcs Chat.cs && OPENAI_API_KEY=... mono Chat.exe BASE_URL [MODEL]
//   (the loader finds libchatwire.so on LD_LIBRARY_PATH, chatwire.dll beside the program)
//
// A system message and a question whose reply is streamed through a
// callback, a second turn, an error read through chatwire_last_error(), and
// everything freed. docs/languages.md explains each step.
using System;
using System.Runtime.InteropServices;
using System.Text;

static class Native
{
    // "chatwire": libchatwire.so, libchatwire.dylib or chatwire.dll.
    const string Lib = "chatwire";
    // CallingConvention.Winapi is __stdcall on 32-bit Windows and the
    // platform's C convention everywhere else: what CHATWIRE_CALL is.
    const CallingConvention Call = CallingConvention.Winapi;

    [UnmanagedFunctionPointer(Call)]
    public delegate int DeltaCallback(IntPtr userdata, IntPtr delta, UIntPtr len);

    // Text goes in as NUL-terminated UTF-8 bytes (Utf8z); pointers that
    // chatwire hands out stay IntPtr, to be read and freed by hand.
    [DllImport(Lib, CallingConvention = Call)] public static extern IntPtr chatwire_version();
    [DllImport(Lib, CallingConvention = Call)] public static extern IntPtr chatwire_last_error();
    [DllImport(Lib, CallingConvention = Call)] public static extern int chatwire_client_new(byte[] baseUrl, byte[] apiKey, out IntPtr client);
    [DllImport(Lib, CallingConvention = Call)] public static extern void chatwire_client_free(IntPtr client);
    [DllImport(Lib, CallingConvention = Call)] public static extern int chatwire_conversation_new(byte[] model, out IntPtr conversation);
    [DllImport(Lib, CallingConvention = Call)] public static extern int chatwire_conversation_set_system(IntPtr conversation, byte[] text);
    [DllImport(Lib, CallingConvention = Call)] public static extern int chatwire_conversation_append(IntPtr conversation, int role, byte[] content);
    [DllImport(Lib, CallingConvention = Call)] public static extern UIntPtr chatwire_conversation_len(IntPtr conversation);
    [DllImport(Lib, CallingConvention = Call)] public static extern void chatwire_conversation_free(IntPtr conversation);
    [DllImport(Lib, CallingConvention = Call)] public static extern int chatwire_send(IntPtr client, IntPtr conversation, out IntPtr reply);
    [DllImport(Lib, CallingConvention = Call)]
    public static extern int chatwire_send_stream(IntPtr client, IntPtr conversation, DeltaCallback onDelta, IntPtr userdata, out IntPtr reply);
    [DllImport(Lib, CallingConvention = Call)] public static extern void chatwire_string_free(IntPtr s);
}

class ChatwireException : Exception
{
    public readonly int Status;
    public ChatwireException(int status, string message) : base(message) { Status = status; }
}

static class Chat
{
    const int CHATWIRE_OK = 0, CHATWIRE_ROLE_USER = 1;

    // A string as NUL-terminated UTF-8; null stays null (NULL in C).
    static byte[] Utf8z(string text)
    {
        if (text == null) return null;
        byte[] bytes = new byte[Encoding.UTF8.GetByteCount(text) + 1];
        Encoding.UTF8.GetBytes(text, 0, text.Length, bytes, 0);
        return bytes;
    }

    // `length` bytes of UTF-8 at `pointer`; up to the NUL when length is -1.
    // (Marshal.PtrToStringUTF8 does this on .NET Core, not on Mono or .NET Framework.)
    static string FromUtf8(IntPtr pointer, long length = -1)
    {
        if (pointer == IntPtr.Zero) return null;
        if (length < 0) { length = 0; while (Marshal.ReadByte(pointer, (int)length) != 0) length++; }
        byte[] bytes = new byte[length];
        Marshal.Copy(pointer, bytes, 0, (int)length);
        return Encoding.UTF8.GetString(bytes);
    }

    // Copies a string chatwire handed out, then frees it.
    static string TakeString(IntPtr pointer)
    {
        try { return FromUtf8(pointer); } finally { Native.chatwire_string_free(pointer); }
    }

    // Throws the status with chatwire_last_error(), read at once: the text
    // lasts only until the next chatwire call on this thread.
    static void Check(int status)
    {
        if (status != CHATWIRE_OK)
            throw new ChatwireException(status, FromUtf8(Native.chatwire_last_error()));
    }

    static int Main(string[] args)
    {
        Console.OutputEncoding = new UTF8Encoding(false);
        string baseUrl = args[0], model = args.Length > 1 ? args[1] : "mock";
        Console.WriteLine("version: " + FromUtf8(Native.chatwire_version()));

        IntPtr client = IntPtr.Zero, conversation = IntPtr.Zero, reply;
        try
        {
            Check(Native.chatwire_client_new(Utf8z(baseUrl), null, out client)); // null key: $OPENAI_API_KEY
            Check(Native.chatwire_conversation_new(Utf8z(model), out conversation));
            Check(Native.chatwire_conversation_set_system(conversation, Utf8z("Answer in one line.")));
            Check(Native.chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, Utf8z("Grüße! What is 2 + 2?")));

            StringBuilder streamed = new StringBuilder();
            int pieces = 0;
            // The delegate is kept in a variable, alive until the call
            // returns (GC.KeepAlive below); an exception must not cross into C.
            Native.DeltaCallback onDelta = (userdata, delta, len) =>
            {
                try { streamed.Append(FromUtf8(delta, (long)len.ToUInt64())); pieces++; return 0; }
                catch { return 1; }
            };
            Check(Native.chatwire_send_stream(client, conversation, onDelta, IntPtr.Zero, out reply));
            GC.KeepAlive(onDelta);
            Console.WriteLine("stream: " + streamed);
            Console.WriteLine("pieces: " + pieces);
            Console.WriteLine("reply: " + TakeString(reply));

            Check(Native.chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, Utf8z("And 3 + 3? Ça va?")));
            Check(Native.chatwire_send(client, conversation, out reply));
            Console.WriteLine("second: " + TakeString(reply));
            Console.WriteLine("messages: " + Native.chatwire_conversation_len(conversation).ToUInt64());

            // The last message is the assistant's: sending again is refused.
            try
            {
                Check(Native.chatwire_send(client, conversation, out reply));
                Console.WriteLine("error: none");
            }
            catch (ChatwireException error)
            {
                Console.WriteLine("error: " + error.Status + " " + error.Message);
            }
        }
        finally
        {
            Native.chatwire_conversation_free(conversation);
            Native.chatwire_client_free(client);
        }
        Console.WriteLine("done");
        return 0;
    }
}
