! chatwire for Fortran 2003 and later: the declarations of include/chatwire.h
! that the example uses, through ISO_C_BINDING.
!
! Strings go in as character(kind=c_char) ending in c_null_char; strings
! handed out are type(c_ptr), copied with chatwire_string() and freed with
! chatwire_string_free(). Handles are type(c_ptr), size_t is c_size_t, the
! status and role are c_int. On 32-bit Windows every function and callback
! is __stdcall (CHATWIRE_CALL): see docs/languages.md for the directive.
module chatwire
  use, intrinsic :: iso_c_binding
  implicit none

  integer(c_int), parameter :: CHATWIRE_OK = 0
  integer(c_int), parameter :: CHATWIRE_ERR_INVALID_CONVERSATION = 4
  integer(c_int), parameter :: CHATWIRE_ROLE_SYSTEM = 0
  integer(c_int), parameter :: CHATWIRE_ROLE_USER = 1
  integer(c_int), parameter :: CHATWIRE_ROLE_ASSISTANT = 2

  ! int (*)(void *userdata, const char *delta, size_t len)
  abstract interface
    function chatwire_delta_callback(userdata, delta, len) bind(c) result(stop)
      import :: c_ptr, c_char, c_size_t, c_int
      type(c_ptr), value :: userdata
      character(kind=c_char), dimension(*), intent(in) :: delta
      integer(c_size_t), value :: len
      integer(c_int) :: stop
    end function
  end interface

  interface
    type(c_ptr) function chatwire_version() bind(c, name="chatwire_version")
      import :: c_ptr
    end function
    type(c_ptr) function chatwire_last_error() bind(c, name="chatwire_last_error")
      import :: c_ptr
    end function
    integer(c_int) function chatwire_client_new(base_url, api_key, client) bind(c, name="chatwire_client_new")
      import :: c_int, c_char, c_ptr
      character(kind=c_char), dimension(*), intent(in) :: base_url
      type(c_ptr), value :: api_key ! c_null_ptr: $OPENAI_API_KEY
      type(c_ptr), intent(out) :: client
    end function
    subroutine chatwire_client_free(client) bind(c, name="chatwire_client_free")
      import :: c_ptr
      type(c_ptr), value :: client
    end subroutine
    integer(c_int) function chatwire_conversation_new(model, conversation) bind(c, name="chatwire_conversation_new")
      import :: c_int, c_char, c_ptr
      character(kind=c_char), dimension(*), intent(in) :: model
      type(c_ptr), intent(out) :: conversation
    end function
    integer(c_int) function chatwire_conversation_set_system(conversation, text) &
        bind(c, name="chatwire_conversation_set_system")
      import :: c_int, c_char, c_ptr
      type(c_ptr), value :: conversation
      character(kind=c_char), dimension(*), intent(in) :: text
    end function
    integer(c_int) function chatwire_conversation_append(conversation, role, content) &
        bind(c, name="chatwire_conversation_append")
      import :: c_int, c_char, c_ptr
      type(c_ptr), value :: conversation
      integer(c_int), value :: role
      character(kind=c_char), dimension(*), intent(in) :: content
    end function
    integer(c_size_t) function chatwire_conversation_len(conversation) bind(c, name="chatwire_conversation_len")
      import :: c_size_t, c_ptr
      type(c_ptr), value :: conversation
    end function
    subroutine chatwire_conversation_free(conversation) bind(c, name="chatwire_conversation_free")
      import :: c_ptr
      type(c_ptr), value :: conversation
    end subroutine
    integer(c_int) function chatwire_send(client, conversation, reply) bind(c, name="chatwire_send")
      import :: c_int, c_ptr
      type(c_ptr), value :: client, conversation
      type(c_ptr), intent(out) :: reply
    end function
    integer(c_int) function chatwire_send_stream(client, conversation, on_delta, userdata, reply) &
        bind(c, name="chatwire_send_stream")
      import :: c_int, c_ptr, c_funptr
      type(c_ptr), value :: client, conversation
      type(c_funptr), value :: on_delta
      type(c_ptr), value :: userdata
      type(c_ptr), intent(out) :: reply
    end function
    subroutine chatwire_string_free(s) bind(c, name="chatwire_string_free")
      import :: c_ptr
      type(c_ptr), value :: s
    end subroutine
    integer(c_size_t) function chatwire_c_strlen(s) bind(c, name="strlen")
      import :: c_size_t, c_ptr
      type(c_ptr), value :: s
    end function
  end interface

contains

  ! A Fortran string as NUL-terminated C text.
  function c_string(text) result(out)
    character(len=*), intent(in) :: text
    character(kind=c_char, len=len(text) + 1) :: out
    out = text // c_null_char
  end function

  ! A copy of the NUL-terminated text at `pointer` (borrowed or owned: the
  ! caller frees what it owns).
  function chatwire_string(pointer) result(text)
    type(c_ptr), intent(in) :: pointer
    character(len=:), allocatable :: text
    character(kind=c_char), pointer :: bytes(:)
    integer :: i, n
    if (.not. c_associated(pointer)) then
      text = ""
      return
    end if
    n = int(chatwire_c_strlen(pointer))
    call c_f_pointer(pointer, bytes, [n])
    allocate(character(len=n) :: text)
    do i = 1, n
      text(i:i) = bytes(i)
    end do
  end function

  ! A string chatwire handed out, copied, then freed.
  function chatwire_take_string(pointer) result(text)
    type(c_ptr), intent(inout) :: pointer
    character(len=:), allocatable :: text
    text = chatwire_string(pointer)
    call chatwire_string_free(pointer)
    pointer = c_null_ptr
  end function
end module chatwire
