! chatwire from Fortran, through ISO_C_BINDING (module chatwire.f90).
!
!   gfortran chatwire.f90 chat.f90 -L/path/to/lib -lchatwire -o chat
!   OPENAI_API_KEY=... ./chat BASE_URL [MODEL]
!
! A system message and a question whose reply is streamed through a
! callback, a second turn, an error read through chatwire_last_error(), and
! everything freed. docs/languages.md explains each step.
module streamed_text
  use, intrinsic :: iso_c_binding
  implicit none

  ! What the callback gets through its userdata pointer.
  type :: streamed
    character(len=:), allocatable :: text
    integer :: pieces = 0
  end type

contains

  ! A bind(c) function, so that c_funloc gives a C function pointer.
  function on_delta(userdata, delta, len) bind(c) result(stop)
    type(c_ptr), value :: userdata
    character(kind=c_char), dimension(*), intent(in) :: delta
    integer(c_size_t), value :: len
    integer(c_int) :: stop
    type(streamed), pointer :: into
    character(len=len) :: piece
    integer :: i
    call c_f_pointer(userdata, into)
    do i = 1, int(len)
      piece(i:i) = delta(i)
    end do
    into%text = into%text // piece
    into%pieces = into%pieces + 1
    stop = 0
  end function
end module streamed_text

program chat
  use, intrinsic :: iso_c_binding
  use chatwire
  use streamed_text
  implicit none
  type(c_ptr) :: client = c_null_ptr, conversation = c_null_ptr, reply = c_null_ptr
  type(streamed), target :: into
  character(len=512) :: base_url, model
  integer(c_int) :: status

  call get_command_argument(1, base_url)
  model = "mock"
  if (command_argument_count() > 1) call get_command_argument(2, model)
  print "(a)", "version: " // chatwire_string(chatwire_version())

  call check(chatwire_client_new(c_string(trim(base_url)), c_null_ptr, client))
  call check(chatwire_conversation_new(c_string(trim(model)), conversation))
  call check(chatwire_conversation_set_system(conversation, c_string("Answer in one line.")))
  ! The source is UTF-8, so the literal's bytes are too.
  call check(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, c_string("Grüße! What is 2 + 2?")))

  into%text = ""
  call check(chatwire_send_stream(client, conversation, c_funloc(on_delta), c_loc(into), reply))
  print "(a)", "stream: " // into%text
  print "(a,i0)", "pieces: ", into%pieces
  print "(a)", "reply: " // chatwire_take_string(reply)

  call check(chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, c_string("And 3 + 3? Ça va?")))
  call check(chatwire_send(client, conversation, reply))
  print "(a)", "second: " // chatwire_take_string(reply)
  print "(a,i0)", "messages: ", chatwire_conversation_len(conversation)

  ! The last message is the assistant's: sending again is refused. The
  ! text of chatwire_last_error() lasts until the next chatwire call on
  ! this thread: copied at once.
  status = chatwire_send(client, conversation, reply)
  if (status == CHATWIRE_OK) then
    print "(a)", "error: none"
  else
    print "(a,i0,a)", "error: ", status, " " // chatwire_string(chatwire_last_error())
  end if

  call chatwire_conversation_free(conversation)
  call chatwire_client_free(client)
  print "(a)", "done"

contains

  ! Stops the program with the status and chatwire_last_error().
  subroutine check(status)
    integer(c_int), intent(in) :: status
    if (status /= CHATWIRE_OK) then
      print "(a,i0,a)", "chatwire failed: ", status, " " // chatwire_string(chatwire_last_error())
      call chatwire_conversation_free(conversation)
      call chatwire_client_free(client)
      error stop 1
    end if
  end subroutine
end program chat
